// compile-cache.mjs's export, for the TypeScript that calls it (dev-generation.ts).
/** Fills Node's compile cache for what a process running `entry` loads, in a child, when a module of it is not there as it is now. */
export declare const fillCompileCache: (entry?: string) => void;
