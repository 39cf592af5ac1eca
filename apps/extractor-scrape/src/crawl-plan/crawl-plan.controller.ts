import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CrawlPlanReadyRequestDto,
  CrawlPlanRequestDto,
  SUBJECTS,
  type CrawlPlan,
  type CrawlPlanReady,
} from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { CrawlPlanner } from './crawl-planner.service.js';

/**
 * Serves SUBJECTS.crawlPlan (POST /crawl/plan, POST /crawl with `prompt`) and SUBJECTS.crawlPlanReady (asked before the
 * gateway maps the site for a plan) in the extractor-scrape queue group.
 */
@Controller()
@UseFilters(WireErrorFilter)
export class CrawlPlanController {
  constructor(private readonly planner: CrawlPlanner) {}

  @ServesSubject(SUBJECTS.crawlPlan)
  plan(@Payload() req: CrawlPlanRequestDto): Promise<CrawlPlan> {
    return this.planner.plan(req);
  }

  @ServesSubject(SUBJECTS.crawlPlanReady)
  ready(@Payload() req: CrawlPlanReadyRequestDto): Promise<CrawlPlanReady> {
    return this.planner.ready(req.apiKeyId);
  }
}
