// dynalite's own modules and its LevelDB packages, exactly as dynalite resolves them (npm may
// nest them under it): the embedded DynamoDB's patches and the tests that look into its store
// reach into these. Loading this patches nothing.
import { createRequire } from 'node:module';

/** `require` from dynalite's own package: its `./db`, its `memory-level`. */
export const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
/** `require` from dynalite's `level`: `classic-level` (its store on disk), `abstract-level`. */
export const fromLevel = createRequire(fromDynalite.resolve('level'));
