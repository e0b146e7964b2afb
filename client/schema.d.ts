// Generated from openapi.json by openapi-typescript (client/generate.ts, `npm run openapi`): do not edit.

export interface paths {
    "/pets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List animals
         * @description Animals ordered by id when filtered by status. When more match, the `Link` header carries `rel="next"`: the same listing with an opaque `cursor`, relative to the request URL. Following `next` links from the first page visits every matching animal once; the last page has no `next`.
         */
        get: operations["listPets"];
        put?: never;
        /**
         * Add an animal
         * @description The service assigns the id. `status` defaults to `available`. With an `Idempotency-Key`, a retry is safe: for 24 hours after a create succeeded, the same key with the same body (as parsed JSON) creates nothing and gets the first 201 again, marked `Idempotent-Replayed: true`. Keys are per API key; only a 201 is remembered.
         */
        post: operations["createPet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pets/{petId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an animal (deprecated: use GET /pets with the status filter)
         * @deprecated
         * @description Deprecated: removed on 2030-12-05. Use GET /pets with the status filter.
         */
        get: operations["getPet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description Availability of the animal.
         * @enum {string}
         */
        PetStatus: "available" | "pending" | "sold";
        /** @description Request body for adding an animal; `id` is assigned by the service. */
        NewPet: {
            /** @description The animal's name; white space around it is trimmed. No control character (U+0000–U+001F, U+007F–U+009F) after trimming. */
            name: string;
            /**
             * Format: int64
             * @description Identifier of the category the animal belongs to.
             */
            categoryId: number;
            /** @default available */
            status?: components["schemas"]["PetStatus"];
        };
        /** @description An animal of the catalogue. */
        Pet: {
            /**
             * Format: int64
             * @description Unique identifier, assigned by the service on creation.
             */
            id: number;
            name: string;
            /** Format: int64 */
            categoryId: number;
            status: components["schemas"]["PetStatus"];
        };
        /** @description A page of animals. */
        Pets: components["schemas"]["Pet"][];
        /** @description Body of every error response. */
        Error: {
            /** @enum {string} */
            code: "BAD_REQUEST" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "TOO_MANY_REQUESTS" | "CONFLICT" | "UNPROCESSABLE_ENTITY" | "INTERNAL_ERROR" | "BAD_GATEWAY" | "SERVICE_UNAVAILABLE" | "GATEWAY_TIMEOUT";
            message: string;
            /**
             * Format: int32
             * @description The HTTP status code of the response.
             */
            status: number;
            /**
             * Format: uuid
             * @description Equal to the x-amzn-RequestId response header.
             */
            requestId: string;
            /** @description Present on validation errors only. */
            details?: {
                field: string;
                message: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listPets: {
        parameters: {
            query?: {
                /**
                 * @description Maximum number of animals returned; 20 when omitted.
                 * @example 20
                 */
                limit?: number;
                /**
                 * @description Only animals with this status.
                 * @example available
                 */
                status?: components["schemas"]["PetStatus"];
                /**
                 * @description Opaque position from the `next` link of the previous page.
                 * @example eyJhZnRlciI6Miwic3RhdHVzIjpudWxsfQ.dhlWk5JSgJWbIzoEFtgtEw
                 */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of animals; `[]` when nothing matches. */
            200: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    /**
                     * @description `<…>; rel="next"` when more animals match.
                     * @example </v1/pets?limit=2&cursor=eyJhZnRlciI6Miwic3RhdHVzIjpudWxsfQ.dhlWk5JSgJWbIzoEFtgtEw>; rel="next"
                     */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pets"];
                };
            };
            /** @description `BAD_REQUEST`: A query parameter or the cursor is malformed or out of range. */
            400: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `UNAUTHORIZED`: API key missing, malformed, unknown, revoked or expired. */
            401: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Always `Bearer`.
                     * @example Bearer
                     */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TOO_MANY_REQUESTS`: The key’s own rate, burst or daily quota, or the stage’s throttling limit, was exceeded. */
            429: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Seconds to wait before retrying.
                     * @example 1
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `INTERNAL_ERROR`: A fault of ours; quote the requestId. */
            500: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BAD_GATEWAY`: The function failed before answering (crashed, was throttled, or answered invalidly). */
            502: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `SERVICE_UNAVAILABLE`: The database is throttling or unreachable. */
            503: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Seconds to wait before retrying.
                     * @example 1
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `GATEWAY_TIMEOUT`: The function did not answer in time. */
            504: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPet: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe: a repeat with the same key and body within 24 hours creates nothing and gets the first response again. 1–255 visible ASCII characters; `"abc"` means the same as `abc`.
                 * @example 5f0c6a2e-8d41-4b7a-9e3f-2c1d0b9a8e77
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPet"];
            };
        };
        responses: {
            /** @description The created animal. */
            201: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    /**
                     * @description Path of the new animal.
                     * @example /v1/pets/1
                     */
                    Location?: string;
                    /**
                     * @description `true` when this repeats the response to an earlier request with the same Idempotency-Key.
                     * @example true
                     */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pet"];
                };
            };
            /** @description `BAD_REQUEST`: The body is not a JSON object, misses required fields, has unknown fields or invalid values. */
            400: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `UNAUTHORIZED`: API key missing, malformed, unknown, revoked or expired. */
            401: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Always `Bearer`.
                     * @example Bearer
                     */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `FORBIDDEN`: The key's scope does not allow this operation: a `read` key may call the GET operations only. */
            403: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CONFLICT`: A request with the same Idempotency-Key is still being processed. */
            409: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    /**
                     * @description Seconds to wait before retrying.
                     * @example 1
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYLOAD_TOO_LARGE`: The body is larger than 16384 bytes. */
            413: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `UNSUPPORTED_MEDIA_TYPE`: Content-Type is not application/json, or its charset is not utf-8. */
            415: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `UNPROCESSABLE_ENTITY`: The Idempotency-Key was already used with a different body. */
            422: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TOO_MANY_REQUESTS`: The key’s own rate, burst or daily quota, or the stage’s throttling limit, was exceeded. */
            429: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Seconds to wait before retrying.
                     * @example 1
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `INTERNAL_ERROR`: A fault of ours; quote the requestId. */
            500: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BAD_GATEWAY`: The function failed before answering (crashed, was throttled, or answered invalidly). */
            502: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `SERVICE_UNAVAILABLE`: The database is throttling or unreachable. */
            503: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Seconds to wait before retrying.
                     * @example 1
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `GATEWAY_TIMEOUT`: The function did not answer in time. */
            504: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the animal.
                 * @example 1
                 */
                petId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The animal. */
            200: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    /**
                     * @description RFC 9745: when this operation was deprecated, as `@<unix-seconds>`.
                     * @example @1793491200
                     */
                    Deprecation?: string;
                    /**
                     * @description RFC 8594: when this operation stops working (an HTTP date).
                     * @example Thu, 05 Dec 2030 00:00:00 GMT
                     */
                    Sunset?: string;
                    /**
                     * @description `<…/pets>; rel="successor-version"`: the listing that replaces this operation.
                     * @example </v1/pets>; rel="successor-version"
                     */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pet"];
                };
            };
            /** @description `BAD_REQUEST`: petId is not a positive integer of at most 2^53−1. */
            400: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    /**
                     * @description RFC 9745: when this operation was deprecated, as `@<unix-seconds>`.
                     * @example @1793491200
                     */
                    Deprecation?: string;
                    /**
                     * @description RFC 8594: when this operation stops working (an HTTP date).
                     * @example Thu, 05 Dec 2030 00:00:00 GMT
                     */
                    Sunset?: string;
                    /**
                     * @description `<…/pets>; rel="successor-version"`: the listing that replaces this operation.
                     * @example </v1/pets>; rel="successor-version"
                     */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `UNAUTHORIZED`: API key missing, malformed, unknown, revoked or expired. */
            401: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Always `Bearer`.
                     * @example Bearer
                     */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOT_FOUND`: No animal has that id. */
            404: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).
                     * @example "burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400
                     */
                    "RateLimit-Policy"?: string;
                    /**
                     * @description RFC 9745: when this operation was deprecated, as `@<unix-seconds>`.
                     * @example @1793491200
                     */
                    Deprecation?: string;
                    /**
                     * @description RFC 8594: when this operation stops working (an HTTP date).
                     * @example Thu, 05 Dec 2030 00:00:00 GMT
                     */
                    Sunset?: string;
                    /**
                     * @description `<…/pets>; rel="successor-version"`: the listing that replaces this operation.
                     * @example </v1/pets>; rel="successor-version"
                     */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TOO_MANY_REQUESTS`: The key’s own rate, burst or daily quota, or the stage’s throttling limit, was exceeded. */
            429: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Seconds to wait before retrying.
                     * @example 1
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `INTERNAL_ERROR`: A fault of ours; quote the requestId. */
            500: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BAD_GATEWAY`: The function failed before answering (crashed, was throttled, or answered invalidly). */
            502: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `SERVICE_UNAVAILABLE`: The database is throttling or unreachable. */
            503: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    /**
                     * @description Seconds to wait before retrying.
                     * @example 1
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `GATEWAY_TIMEOUT`: The function did not answer in time. */
            504: {
                headers: {
                    /**
                     * @description The request id, also in every Error body.
                     * @example c0ffee00-1d2e-4f5a-8b9c-0123456789ab
                     */
                    "x-amzn-RequestId"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
