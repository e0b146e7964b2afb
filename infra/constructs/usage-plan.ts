// The stage's usage plan: every key's own rate, burst and daily quota (stage settings,
// keyLimits), under the stage's throttling. The key tool puts each API key it creates
// in this plan; the authorizer names the caller's API key (API key source AUTHORIZER).
import { Period, type RestApi, type Stage, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import type { StageSettings } from '../stages.ts';

export interface KeyUsagePlanProps {
  readonly settings: StageSettings;
  readonly api: RestApi;
  readonly stage: Stage;
}

export class KeyUsagePlan extends Construct {
  readonly usagePlan: UsagePlan;

  constructor(scope: Construct, id: string, { settings, api, stage }: KeyUsagePlanProps) {
    super(scope, id);
    const { rateLimit, burstLimit, quotaPerDay } = settings.keyLimits;
    this.usagePlan = new UsagePlan(this, 'Plan', {
      name: `petstore-${settings.stage}`,
      description: `Limits of each Pet Store API key, stage ${settings.stage}`,
      throttle: { rateLimit, burstLimit },
      ...(quotaPerDay !== undefined && { quota: { limit: quotaPerDay, period: Period.DAY } }),
      apiStages: [{ api, stage }],
    });
  }
}
