import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TrawlError, type PlaceRecord } from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { ApiKeyInQuery } from '../../auth/api-key-in-query.decorator.js';
import { NoEnvelope } from '../../envelope/no-envelope.decorator.js';
import { NativeOperations } from '../native-operations.service.js';
import { toGoogleAnswer, type SearchContext } from './serpapi-google.mapper.js';
import { placeUrlOf, toMapsSearchAnswer, toPlaceAnswer } from './serpapi-maps.mapper.js';
import { toNativeParams } from './serpapi-params.mapper.js';

/**
 * SerpAPI's search API at the root: `GET /search` and `GET /search.json`, the key as `api_key` in the query (or an
 * x-api-key / Bearer header), JSON. engine=google runs the native web search, engine=google_maps the native maps
 * search (type=search) or place page (type=place); the answers are SerpAPI's shapes of Trawl's own parse. The key is
 * in the URL here: no error, log line, trace attribute or metric label carries the URL's query (ADR 0024).
 */
@ApiExcludeController()
@NoEnvelope()
@ApiKeyInQuery('api_key')
@Controller()
export class SerpApiController {
  constructor(private readonly native: NativeOperations) {}

  @Get(['search', 'search.json'])
  async search(
    @Query() query: Record<string, unknown>,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<Record<string, unknown>> {
    const started = Date.now();
    const mapping = toNativeParams(query);
    const ctx = (): SearchContext => ({
      id: String(req.id),
      createdAt: new Date(started),
      seconds: (Date.now() - started) / 1000,
      selfUrl: `${req.protocol}://${req.host}/search.json`,
    });
    const withWarning = (answer: Record<string, unknown>) =>
      mapping.warnings.length > 0 ? { ...answer, warning: mapping.warnings.join('; ') } : answer;

    if (mapping.engine === 'google') {
      if (mapping.native.q === undefined) throw missing('q');
      return withWarning(toGoogleAnswer(await this.native.search(mapping.native, req, res), mapping, ctx()));
    }
    const type = mapping.given.type ?? 'search';
    if (type === 'place') {
      const placeId = mapping.given.place_id;
      if (placeId === undefined) throw missing('place_id');
      const url = placeUrlOf(placeId, mapping.given.hl);
      const place: PlaceRecord = await this.native.extract(
        { type: 'mp-maps', url, ...(mapping.native.maxAge !== undefined ? { maxAge: mapping.native.maxAge } : {}) },
        req,
        res,
      );
      return withWarning(toPlaceAnswer(place, mapping, ctx(), url));
    }
    if (type !== 'search') {
      throw new TrawlError('VALIDATION_FAILED', 'Unsupported `type` parameter: use search or place.', {
        field: 'type',
      });
    }
    if (mapping.native.q === undefined) throw missing('q');
    const found = await this.native.maps(mapping.native, req, res);
    return withWarning(toMapsSearchAnswer(found.data, mapping, ctx()));
  }
}

/** SerpAPI's words for a missing parameter. */
function missing(name: string): TrawlError {
  return new TrawlError('VALIDATION_FAILED', `Missing query \`${name}\` parameter.`, { field: name });
}
