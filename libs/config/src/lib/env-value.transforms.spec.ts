import { describe, expect, it } from '@jest/globals';
import { ExtractorScrapeEnv } from './extractor-scrape.env.js';
import { GatewayEnv } from './gateway.env.js';
import { loadEnv } from './load-env.js';
import { TaskServiceEnv } from './task-service.env.js';
import { WebhookDispatcherEnv } from './webhook-dispatcher.env.js';

const SECRET = { WEBHOOK_SIGNING_SECRET: `whsec_${Buffer.alloc(24, 7).toString('base64')}` };

describe('typed variables: lists, flags and durations leave loadEnv parsed', () => {
  it('reads a comma-separated variable as its trimmed, non-empty items', () => {
    const env = loadEnv(GatewayEnv, {
      NATS_URL: 'nats://a:4222, nats://b:4222,',
      API_KEYS: 'k1,,k2 ',
      CORS_ORIGINS: 'https://a.example',
    });
    expect(env.NATS_URL).toEqual(['nats://a:4222', 'nats://b:4222']);
    expect(env.API_KEYS).toEqual(['k1', 'k2']);
    expect(env.CORS_ORIGINS).toEqual(['https://a.example']);
    expect(loadEnv(GatewayEnv, {})).toMatchObject({ API_KEYS: [], CORS_ORIGINS: [] });
    expect(loadEnv(TaskServiceEnv, { SSRF_ALLOW_HOSTS: '127.0.0.1,10.0.0.0/8' }).SSRF_ALLOW_HOSTS).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
    ]);
  });

  it('checks each item of a list, naming the variable', () => {
    expect(() => loadEnv(GatewayEnv, { NATS_URL: 'nats://a:4222,http://b' })).toThrow(/NATS_URL/);
    expect(() => loadEnv(GatewayEnv, { NATS_URL: ',' })).toThrow(/NATS_URL/);
    expect(() => loadEnv(ExtractorScrapeEnv, { BROWSER_BLOCK_RESOURCES: 'image,video' })).toThrow(
      /BROWSER_BLOCK_RESOURCES/,
    );
    expect(() => loadEnv(ExtractorScrapeEnv, { PROXY_URLS: 'http://p:1,socks5://q:2' })).toThrow(/PROXY_URLS/);
    expect(() => loadEnv(TaskServiceEnv, { TASK_SCRAPE_FORMATS: 'markdown,pdf' })).toThrow(/TASK_SCRAPE_FORMATS/);
    expect(loadEnv(TaskServiceEnv, { TASK_SCRAPE_FORMATS: 'markdown' }).TASK_SCRAPE_FORMATS).toEqual(['markdown']);
    expect(loadEnv(TaskServiceEnv, {}).TASK_SCRAPE_FORMATS).toEqual(['markdown', 'html']);
  });

  it("reads true/false as a boolean ('false' is false), and names anything else", () => {
    expect(loadEnv(ExtractorScrapeEnv, {})).toMatchObject({ BROWSER_REUSE_CONTEXTS: true, BROWSER_NO_SANDBOX: false });
    const env = loadEnv(ExtractorScrapeEnv, { BROWSER_REUSE_CONTEXTS: 'false', BROWSER_NO_SANDBOX: 'true' });
    expect(env).toMatchObject({ BROWSER_REUSE_CONTEXTS: false, BROWSER_NO_SANDBOX: true });
    const tasks = loadEnv(TaskServiceEnv, { TASK_WORKERS_ENABLED: 'false', BULL_BOARD_READ_ONLY: 'false' });
    expect(tasks).toMatchObject({ TASK_WORKERS_ENABLED: false, BULL_BOARD_READ_ONLY: false });
    for (const bad of ['yes', '1', 'TRUE', 'off']) {
      expect(() => loadEnv(TaskServiceEnv, { TASK_WORKERS_ENABLED: bad })).toThrow(
        /TASK_WORKERS_ENABLED must be true or false/,
      );
      expect(() => loadEnv(ExtractorScrapeEnv, { BROWSER_NO_SANDBOX: bad })).toThrow(/BROWSER_NO_SANDBOX/);
    }
  });

  it('reads the webhook retry schedule as milliseconds; its default reaches about a day', () => {
    const env = loadEnv(WebhookDispatcherEnv, { ...SECRET, WEBHOOK_RETRY_SCHEDULE: '500ms,5s,2m,1h' });
    expect(env.WEBHOOK_RETRY_SCHEDULE).toEqual([500, 5000, 120_000, 3_600_000]);
    const defaults = loadEnv(WebhookDispatcherEnv, SECRET).WEBHOOK_RETRY_SCHEDULE;
    expect(defaults).toEqual(
      loadEnv(WebhookDispatcherEnv, { ...SECRET, WEBHOOK_RETRY_SCHEDULE: '5s,30s,2m,10m,30m,1h,3h,6h,12h' })
        .WEBHOOK_RETRY_SCHEDULE,
    );
    const total = defaults.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(26 * 3_600_000);
    for (const bad of ['5 minutes', '5s,1d', ',']) {
      expect(() => loadEnv(WebhookDispatcherEnv, { ...SECRET, WEBHOOK_RETRY_SCHEDULE: bad })).toThrow(
        /WEBHOOK_RETRY_SCHEDULE must be durations/,
      );
    }
  });
});
