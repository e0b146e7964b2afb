// Reading what the local server printed as CloudWatch would file it: the API's access
// log, each function's log group (JSON lines named by function_name) and the EMF lines.
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { vi } from 'vitest';
import { runningDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import type { LogSource } from '../../infra/monitoring/queries.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import type { MetricSpec } from '../../shared/observability/metric-names.ts';

export type LogLine = Record<string, unknown>;

export interface EmfLine extends LogLine {
  _aws: {
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
}

export interface ParsedOutput {
  /** Every line after the start-up banner (which shows the key on purpose), parsed or not. */
  raw: string[];
  accessLog: LogLine[];
  /** Function log lines by source (operationId or `authorizer`), summary lines with their EMF members included. */
  functionLines: Map<LogSource, LogLine[]>;
  emf: EmfLine[];
}

const BANNER_END = 'Stop with Ctrl+C.';

/** `petstore-local-listPets` → `listPets`. */
const sourceOf = (functionName: unknown): LogSource | undefined =>
  typeof functionName === 'string' ? (functionName.replace(/^petstore-local-/, '') as LogSource) : undefined;

export const parseOutput = (output: string): ParsedOutput => {
  const afterBanner = output.slice(output.indexOf(BANNER_END) + BANNER_END.length);
  const raw = afterBanner.split('\n').filter((line) => line.trim() !== '');
  const parsed: ParsedOutput = { raw, accessLog: [], functionLines: new Map(), emf: [] };
  for (const line of raw) {
    let value: LogLine;
    try {
      value = JSON.parse(line) as LogLine;
    } catch {
      continue;
    }
    if (value.accessLog) {
      parsed.accessLog.push(value.accessLog as LogLine);
      continue;
    }
    // A summary line is both: a log line of its function, and an EMF document holding its metrics.
    if (value._aws) parsed.emf.push(value as EmfLine);
    const source = sourceOf(value.function_name);
    if (source) parsed.functionLines.set(source, [...(parsed.functionLines.get(source) ?? []), value]);
  }
  return parsed;
};

/** The lines CloudWatch would hold in `source`'s log group. */
export const linesOf = (parsed: ParsedOutput, source: LogSource): LogLine[] =>
  source === 'accessLog' ? parsed.accessLog : (parsed.functionLines.get(source) ?? []);

/** A field as Logs Insights flattens JSON: `error.stack` is `{"error": {"stack": …}}`. */
export const fieldOf = (line: LogLine, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as LogLine)[key] : undefined), line);

/** EMF lines that declare `spec`'s metric, with the namespace and dimension sets they declare. */
export const emfLinesOf = (emf: EmfLine[], spec: MetricSpec) =>
  emf.flatMap((line) =>
    line._aws.CloudWatchMetrics.filter((directive) =>
      directive.Metrics.some((metric) => metric.Name === spec.name),
    ).map((directive) => ({
      line,
      namespace: directive.Namespace,
      dimensions: directive.Dimensions,
      unit: directive.Metrics.find((metric) => metric.Name === spec.name)!.Unit,
    })),
  );

/** The running server's embedded DynamoDB, reached as the key tool reaches it. */
export const embeddedDynamoDB = (
  dataDir: string,
): { client: DynamoDBClient; keys: KeysRepository; deleteTable(name: string): Promise<void> } => {
  const endpoint = runningDynamoDB(dataDir);
  if (!endpoint) throw new Error(`no server holds ${dataDir}`);
  const client = new DynamoDBClient(localClientConfig(endpoint));
  return {
    client,
    keys: createKeysRepository(DynamoDBDocumentClient.from(client), keysTable.name),
    deleteTable: async (name) => {
      await client.send(new DeleteTableCommand({ TableName: name }));
    },
  };
};

/**
 * What the functions write in this process, as Lambda files it: stdout and stderr (Powertools
 * writes ERROR and WARN to stderr, the rest, and the summary line, go to stdout) in the function's
 * log group. Captured until vi.restoreAllMocks(); `clear` between tests.
 */
export const captureFunctionOutput = () => {
  let written: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
  return {
    /** Every JSON line written so far. */
    lines: (): LogLine[] =>
      written
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as LogLine),
    text: (): string => written.join(''),
    clear: (): void => {
      written = [];
    },
  };
};
