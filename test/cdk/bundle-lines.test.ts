// The lines on-call reads, from the bundles `cdk synth` makes, run as Lambda runs them
// (tools/harness/lambda-host.ts) with the environment the template gives each function and the
// version Lambda would name: each function's first line in a new environment is the deploy
// marker naming that version and the template's commit, and each invocation's line names them
// too, with the request's inputs (https://docs.aws.amazon.com/lambda/latest/dg/nodejs-context.html:
// functionVersion, "the version of the function that's executing").
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeAll, describe, expect, test } from 'vitest';
import { FUNCTION_NAMES, type FunctionName } from '../../shared/api/routes.ts';
import { startLambdaProcess } from '../../tools/harness/lambda-process.ts';
import { sampleEvent, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { functionBundle } from './support/bundle.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { render, resource } from './support/template.ts';

const NOWHERE = 'http://127.0.0.1:9';
const VERSION = '7';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

/** The function's PETSTORE_COMMIT as the production template sets it. */
const templateCommit = (name: FunctionName): string =>
  render(
    resource(app.template('production'), app.index.production.functions[name].function).Properties!.Environment
      .Variables.PETSTORE_COMMIT,
  );

const eventOf = (name: FunctionName): unknown =>
  name === 'authorizer'
    ? {
        type: 'TOKEN',
        authorizationToken: 'Basic abc',
        methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/production/GET/v1/pets',
      }
    : sampleEvent(name, sampleRequests[name].invalid);

describe('the bundles’ lines, run as Lambda runs them', () => {
  test.each(FUNCTION_NAMES)('%s: a deploy marker first, then lines naming the version and commit', async (name) => {
    const commit = templateCommit(name);
    const event = eventOf(name);
    expect(commit).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
    const host = await startLambdaProcess({
      bundle: functionBundle(app, 'production', name),
      functionName: name,
      dynamodbEndpoint: NOWHERE,
      version: VERSION,
      environment: { PETSTORE_COMMIT: commit },
      captureOutput: true,
    });
    try {
      await host.invoke(event, 2);
    } finally {
      await host.stop();
    }
    const lines = host
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      message: 'execution environment started',
      executedVersion: VERSION,
      commit,
      function_name: `petstore-staging-${name}`,
      cold_start: true,
    });
    expect(lines.filter((line) => line.message === 'execution environment started')).toHaveLength(1);
    const summaries = lines.filter((line) => line.message === (name === 'authorizer' ? 'authorization' : 'request'));
    expect(summaries).toHaveLength(2);
    for (const line of summaries) expect(line).toMatchObject({ executedVersion: VERSION, commit });
    if (name !== 'authorizer') {
      const sent = event as APIGatewayProxyEvent;
      for (const line of summaries) {
        expect(line.requestId).toBe(sent.requestContext.requestId);
        expect(line.cursorSent).toBe(false);
        if (sent.pathParameters) expect(line.pathParameters).toEqual(sent.pathParameters);
        if (sent.queryStringParameters) expect(line.query).toEqual(sent.queryStringParameters);
      }
    }
  });
});
