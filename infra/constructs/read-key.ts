// The stage's read keys that no one hands out: the release checks' probe key and the smoke
// canary's key, each minted by the stack itself (functions/read-key.ts, a Lambda-backed custom
// resource) into its secret, so that a fresh stage's hooks and canary have keys that work with
// no step by hand. Raising the stage's readKeyGeneration replaces both (the old keys are revoked
// once the deploy succeeded; a rollback returns to them).
// A stage with `smokeWriteKey` (staging; never production) also gets a `write` key, minted the
// same way into a secret of its own, for the pipeline's full smoke run (docs/deploying.md).
// The canary and the smoke run call through API Gateway, so their keys also get their API key in
// the stage's usage plan, as the key tool gives every key it creates (tools/keys/usage-plan.ts).
import { CustomResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { CfnApiKey, CfnUsagePlanKey, type UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ReadKeyProperties } from '../../functions/read-key.ts';
import type { KeyScope } from '../../shared/domain/api-keys.ts';
import { type DeployedStage, type StageSettings, smokeWriteKeySecretName, stackName } from '../stages.ts';
import { BundledFunction } from './bundled-function.ts';

const READ_KEY_ENTRY = 'functions/read-key.ts';
/** CloudFormation's name for the resource type: Custom:: and a name of ours. */
export const READ_KEY_RESOURCE_TYPE = 'Custom::PetStoreReadKey';

export interface ReadKeysProps {
  readonly settings: StageSettings;
  readonly keysTable: TableV2;
  /** The secrets the probe key and the canary's key go to. */
  readonly probeKeySecret: ISecret;
  readonly canaryKeySecret: ISecret;
  readonly usagePlan: UsagePlan;
}

export class ReadKeys extends Construct {
  readonly minter: BundledFunction;
  readonly probeKey: CustomResource;
  readonly canaryKey: CustomResource;
  /** The canary's key's API key, in the usage plan: what the canary's first run waits for. */
  readonly canaryUsagePlanKey: CfnUsagePlanKey;
  /** The pipeline's smoke write key and its secret, where the stage's settings ask for one. */
  readonly smokeWriteKey?: { readonly key: CustomResource; readonly secret: Secret };

  constructor(scope: Construct, id: string, props: ReadKeysProps) {
    const { settings, keysTable, probeKeySecret, canaryKeySecret, usagePlan } = props;
    super(scope, id);
    const name = stackName(settings.stage);
    // Against production the smoke checks are read-only, whatever a setting says.
    if (settings.smokeWriteKey && settings.stage === 'production')
      throw new Error('smokeWriteKey: production gets no write key; its smoke runs are read-only');
    const writeKeySecret = settings.smokeWriteKey ? this.writeKeySecret(settings.stage) : undefined;
    // A key's item: read by its hash (GetItem, strongly consistent: is the key in the secret still
    // valid? and the conditional put's answer when it was lost), put (PutItem), revoked (UpdateItem
    // of revokedAt). The two secrets: their versions listed, read and written, and the version in
    // use chosen (functions/read-key.ts: a retry or a rollback finds the key it made). No scan.
    this.minter = new BundledFunction(this, 'Minter', {
      entry: READ_KEY_ENTRY,
      settings,
      roleDescription: `Mints the read keys of the release checks and the smoke canary (${settings.stage})`,
      grants: [
        { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], resources: [keysTable.tableArn] },
        {
          actions: [
            'secretsmanager:ListSecretVersionIds',
            'secretsmanager:GetSecretValue',
            'secretsmanager:PutSecretValue',
            'secretsmanager:UpdateSecretVersionStage',
          ],
          resources: [probeKeySecret, canaryKeySecret, ...(writeKeySecret ? [writeKeySecret] : [])].map(
            (secret) => secret.secretArn,
          ),
        },
      ],
      function: {
        description: `Pet Store read keys of ${name}: minted by the stack for its release checks and canary`,
        memorySize: 256,
        timeout: Duration.seconds(30),
      },
      acknowledged: {
        noDeadLetterQueue:
          'CloudFormation invokes it for its custom resources and waits for its answer; a request it cannot ' +
          'serve is answered FAILED, and one it never answers fails the stack operation at its timeout.',
        xrayWildcard:
          'Only the two X-Ray actions that active tracing adds (xray:PutTraceSegments, xray:PutTelemetryRecords): ' +
          'X-Ray has no resource-level permissions. Its other grants name the keys table and the two secrets.',
      },
    });
    const readKey = (keyId: string, secret: ISecret, label: string, scope: KeyScope = 'read') => {
      const properties: ReadKeyProperties = {
        TableName: keysTable.tableName,
        SecretArn: secret.secretArn,
        Label: label,
        Generation: String(settings.readKeyGeneration),
        Scope: scope,
      };
      const resource = new CustomResource(this, keyId, {
        serviceToken: this.minter.function.functionArn,
        resourceType: READ_KEY_RESOURCE_TYPE,
        properties: { ...properties },
      });
      // The role's grants exist before CloudFormation sends its first request.
      resource.node.addDependency(this.minter.role);
      return resource;
    };
    this.probeKey = readKey('ProbeKey', probeKeySecret, `${name} release probe (made by the stack)`);
    this.canaryKey = readKey('CanaryKey', canaryKeySecret, `${name} smoke canary (made by the stack)`);

    const inUsagePlan = (idPrefix: string, key: CustomResource, what: string) => {
      const apiKey = new CfnApiKey(this, `${idPrefix}ApiKey`, {
        description: `${name} ${what} (its usage identifier, never the key)`,
        enabled: true,
        value: key.getAttString('UsageKey'),
      });
      return new CfnUsagePlanKey(this, `${idPrefix}UsagePlanKey`, {
        keyId: apiKey.ref,
        keyType: 'API_KEY',
        usagePlanId: usagePlan.usagePlanId,
      });
    };
    this.canaryUsagePlanKey = inUsagePlan('Canary', this.canaryKey, "smoke canary's read key");
    if (writeKeySecret) {
      const key = readKey('SmokeWriteKey', writeKeySecret, `${name} pipeline smoke run (made by the stack)`, 'write');
      inUsagePlan('SmokeWrite', key, "pipeline smoke run's write key");
      this.smokeWriteKey = { key, secret: writeKeySecret };
    }
  }

  private writeKeySecret(stage: DeployedStage): Secret {
    const name = stackName(stage);
    const secret = new Secret(this, 'SmokeWriteKeySecret', {
      secretName: smokeWriteKeySecretName(stage),
      description: `The write key of ${name}'s pipeline smoke run: minted by the stack (infra/constructs/read-key.ts)`,
      // A placeholder until the stack's key replaces it.
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "The secret holds an API key the stack mints (infra/constructs/read-key.ts), not a credential Secrets Manager can rotate by itself: it is replaced by raising the stage's readKeyGeneration (docs/deploying.md).",
    });
    return secret;
  }
}
