// Limits per key, deployed: one usage plan per stage with the stage's keyLimits, on the
// stage's API, its id an output for the key tool.
import { beforeAll, describe, expect, test } from 'vitest';
import { DEPLOYED_STAGES, STACK_OUTPUTS, stageSettings } from '../../infra/stages.ts';
import { rateLimitsFromEnv } from '../../shared/domain/api-keys.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { render, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe.each(DEPLOYED_STAGES)('stage %s', (stage) => {
  test("has one usage plan, on the stage's API, with the stage's limits per key", () => {
    const template = app.template(stage);
    const plans = resourcesOfType(template, 'AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(1);
    const [logicalId, plan] = plans[0]!;
    const { rateLimit, burstLimit, quotaPerDay } = stageSettings[stage].keyLimits;
    expect(plan.Properties!.Throttle).toEqual({ RateLimit: rateLimit, BurstLimit: burstLimit });
    expect(plan.Properties!.Quota).toEqual(
      quotaPerDay === undefined ? undefined : { Limit: quotaPerDay, Period: 'DAY' },
    );
    const [apiStage] = plan.Properties!.ApiStages as { ApiId: unknown; Stage: unknown }[];
    const [restApi] = resourcesOfType(template, 'AWS::ApiGateway::RestApi')[0]!;
    const [stageResource] = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0]!;
    expect(render(apiStage!.ApiId)).toBe(`\${${restApi}}`);
    expect(render(apiStage!.Stage)).toBe(`\${${stageResource}}`);
    expect(render(template.Outputs[STACK_OUTPUTS.usagePlanId]!.Value)).toBe(`\${${logicalId}}`);
  });

  test('each key may use less than the whole stage', () => {
    const { throttling, keyLimits } = stageSettings[stage];
    expect(keyLimits.rateLimit).toBeLessThan(throttling.rateLimit);
    expect(keyLimits.burstLimit).toBeLessThan(throttling.burstLimit);
  });

  test("the authorizer names the plan's own limits, which every answer's RateLimit-Policy carries", () => {
    const template = app.template(stage);
    const [, plan] = resourcesOfType(template, 'AWS::ApiGateway::UsagePlan')[0]!;
    const authorizer = resourcesOfType(template, 'AWS::Lambda::Function').find(([, fn]) =>
      String(fn.Properties!.Description).includes('authorizer'),
    )![1];
    const variables = authorizer.Properties!.Environment.Variables as Record<string, string>;
    const quota = plan.Properties!.Quota as { Limit: number } | undefined;
    const throttle = plan.Properties!.Throttle as { RateLimit: number; BurstLimit: number };
    expect(rateLimitsFromEnv(variables)).toEqual({
      rateLimit: throttle.RateLimit,
      burstLimit: throttle.BurstLimit,
      quotaPerDay: quota?.Limit,
    });
  });

  test("API keys and their plan membership are the key tool's, rotated keys included: the template has only its own keys'", () => {
    // A key the tool creates or rotates gets its API key in the plan from the tool
    // (tools/keys/usage-plan.ts, test/integration/keys-usage-plan.test.ts): a stack update
    // must never remove one, so the stack owns none of them, only the API keys of the keys it
    // mints for its own canary and, on staging alone, for the pipeline's smoke run (test/cdk/read-key.test.ts).
    const template = app.template(stage);
    const apiKeys = resourcesOfType(template, 'AWS::ApiGateway::ApiKey');
    expect(apiKeys.map(([, r]) => render(r.Properties!.Value))).toEqual([
      expect.stringMatching(/^\$\{ReadKeysCanaryKey[0-9A-F]{8}\.UsageKey\}$/),
      ...(stage === 'staging' ? [expect.stringMatching(/^\$\{ReadKeysSmokeWriteKey[0-9A-F]{8}\.UsageKey\}$/)] : []),
    ]);
    expect(
      resourcesOfType(template, 'AWS::ApiGateway::UsagePlanKey').map(([, r]) => render(r.Properties!.KeyId)),
    ).toEqual(apiKeys.map(([id]) => `\${${id}}`));
    const [, restApi] = resourcesOfType(template, 'AWS::ApiGateway::RestApi')[0]!;
    // The authorizer names each request's API key (usageIdentifierKey): the plan counts the new key from its first request.
    expect(restApi.Properties!.ApiKeySourceType).toBe('AUTHORIZER');
  });
});
