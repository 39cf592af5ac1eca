import { Module } from '@nestjs/common';
import { NativeRoutesModule } from '../../routes/native-routes.module.js';
import { FirecrawlModule } from '../firecrawl/firecrawl.module.js';
import { McpController } from './mcp.controller.js';

/** The MCP server (ADR 0024): firecrawl-mcp's tools over the native operations and the Firecrawl translations. */
@Module({
  imports: [NativeRoutesModule, FirecrawlModule],
  controllers: [McpController],
})
export class McpModule {}
