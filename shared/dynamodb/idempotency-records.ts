// The idempotency records of createPet: Powertools' DynamoDB persistence layer, with the
// animal's id in the record from the moment the record is taken.
//
// Why Powertools alone is not enough: its record says only "in progress" until the work has
// finished, and is completed after it. A function that dies in between (a Lambda timeout, a
// crash, a server killed mid-write) leaves an in-progress record that expires; the retry then
// takes the record afresh and runs the work again: a second animal. Here the record names the
// id the animal is (or will be) written under before anything is written, and a retry that
// takes over an expired record keeps that id: it finds the animal the first attempt made, or
// writes it under that id (a put that never overwrites). A failed attempt releases the record
// instead of deleting it, so that its id outlives it: the failure may have been a lost answer
// from a put that landed.
//
// What Powertools still does: the key and payload hashes (sorted JSON, SHA-256), the record's
// expiry, the in-progress expiry from the invocation's remaining time, reading a record and
// deciding replay (201), 409 or 422 from it, completing it with the response, and the middy
// middleware that runs all of it around the create.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { JSONValue } from '@aws-lambda-powertools/commons/types';
import {
  IdempotencyItemAlreadyExistsError,
  IdempotencyItemNotFoundError,
  IdempotencyRecordStatus,
  PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** What an attempt brings to the record (an id for a new animal) and what the record gives back. */
export interface Reservation {
  /** A fresh animal id, used when this attempt is the first to take the record. */
  readonly newId: () => Promise<number>;
  /** Set once the record is taken: the id the animal has or gets, and whether an earlier attempt chose it. */
  taken?: { petId: number; resumed: boolean };
}

const { statusAttr, expiryAttr, inProgressExpiryAttr, dataAttr, validationKeyAttr } =
  PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS;
const KEY_ATTRIBUTE = 'id';
const PET_ID_ATTRIBUTE = 'petId';
const names = {
  '#id': KEY_ATTRIBUTE,
  '#status': statusAttr,
  '#expiry': expiryAttr,
  '#inProgressExpiry': inProgressExpiryAttr,
  '#validation': validationKeyAttr,
  '#petId': PET_ID_ATTRIBUTE,
};

/** A stored record as Powertools reads one (its `_getRecord`), from the item a failed write returned. */
const recordOf = (item: Record<string, unknown>): IdempotencyRecord =>
  new IdempotencyRecord({
    idempotencyKey: item[KEY_ATTRIBUTE] as string,
    status: item[statusAttr] as (typeof IdempotencyRecordStatus)[keyof typeof IdempotencyRecordStatus],
    expiryTimestamp: item[expiryAttr] as number,
    inProgressExpiryTimestamp: item[inProgressExpiryAttr] as number | undefined,
    responseData: item[dataAttr] as JSONValue,
    payloadHash: item[validationKeyAttr] as string | undefined,
  });

/** The attempt whose record is being saved: Powertools hands `_putRecord` the record only. */
const attempts = new AsyncLocalStorage<Reservation>();

export class ReservingPersistenceLayer extends DynamoDBPersistenceLayer {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(tableName: string, client: DynamoDBDocumentClient) {
    super({ tableName, awsSdkV3Client: client, keyAttr: KEY_ATTRIBUTE });
    this.#client = client;
    this.#table = tableName;
  }

  /** `data.reservation` is where the record's animal id comes from and goes to. */
  override saveInProgress(data: JSONValue, remainingTimeInMillis?: number): Promise<void> {
    const reservation = (data as { reservation?: Reservation } | undefined)?.reservation;
    if (!reservation) throw new Error('an idempotent attempt needs a reservation');
    return attempts.run(reservation, () => super.saveInProgress(data, remainingTimeInMillis));
  }

  /**
   * Takes the record when it is new, or in progress past its expiry with the same body (the
   * first attempt is over, whatever became of it); the latter keeps its animal id. A record
   * past its window is removed first: the key starts afresh. Anything else is the existing
   * record, for Powertools to replay, refuse with 409, or refuse with 422.
   */
  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    const reservation = attempts.getStore();
    if (!reservation) throw new Error('saveInProgress was not given a reservation');
    const petId = await reservation.newId();
    for (let tries = 0; tries < 3; tries++) {
      const now = Date.now();
      let returned: IdempotencyRecord | undefined;
      try {
        const { Attributes } = await this.#client.send(
          new UpdateCommand({
            TableName: this.#table,
            Key: { [KEY_ATTRIBUTE]: record.idempotencyKey },
            UpdateExpression:
              'SET #status = :inProgress, #expiry = :expiry, #inProgressExpiry = :inProgressExpiry, ' +
              '#validation = :validation, #petId = if_not_exists(#petId, :petId)',
            ConditionExpression:
              'attribute_not_exists(#id) OR (#status = :inProgress AND #inProgressExpiry < :nowMs ' +
              'AND #validation = :validation AND #expiry >= :now)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ':inProgress': IdempotencyRecordStatus.INPROGRESS,
              ':expiry': record.expiryTimestamp,
              ':inProgressExpiry': record.inProgressExpiryTimestamp ?? now,
              ':validation': record.payloadHash ?? '',
              ':petId': petId,
              ':nowMs': now,
              ':now': now / 1000,
            },
            ReturnValues: 'ALL_NEW',
            // The record that stood in the way comes back with the refusal (as Powertools' own
            // put asks): a replay, 409 or 422 costs this one request, not a read after it.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        const taken = Attributes?.[PET_ID_ATTRIBUTE] as number;
        reservation.taken = { petId: taken, resumed: taken !== petId };
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        returned = error.Item && recordOf(unmarshall(error.Item));
      }
      // The embedded DynamoDB returns no item with the refusal: read the record then.
      let existing: IdempotencyRecord;
      try {
        existing = returned ?? (await this._getRecord(record.idempotencyKey));
      } catch (error) {
        if (error instanceof IdempotencyItemNotFoundError) continue; // released and gone meanwhile
        throw error;
      }
      if (!existing.isExpired()) {
        throw new IdempotencyItemAlreadyExistsError('the record of this key is taken', existing);
      }
      await this.#deleteExpired(record.idempotencyKey, now);
    }
    throw new IdempotencyItemAlreadyExistsError('the record of this key keeps changing');
  }

  /**
   * Called when the attempt failed (any answer but a 201): the record stays, with its animal
   * id, but is no longer in progress, so that the same key and body may be retried at once and
   * the retry finds the animal should the failed attempt have made it after all.
   */
  protected override async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { [KEY_ATTRIBUTE]: record.idempotencyKey },
          UpdateExpression: 'SET #inProgressExpiry = :released',
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': statusAttr, '#inProgressExpiry': inProgressExpiryAttr },
          ExpressionAttributeValues: { ':inProgress': IdempotencyRecordStatus.INPROGRESS, ':released': 0 },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async #deleteExpired(idempotencyKey: string, now: number): Promise<void> {
    try {
      await this.#client.send(
        new DeleteCommand({
          TableName: this.#table,
          Key: { [KEY_ATTRIBUTE]: idempotencyKey },
          ConditionExpression: '#expiry < :now',
          ExpressionAttributeNames: { '#expiry': expiryAttr },
          ExpressionAttributeValues: { ':now': now / 1000 },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
