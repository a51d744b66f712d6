/**
 * The bounds of the analyst's local SQL (local/analytics-duckdb.ts), in a module without DuckDB so the
 * CLI's help can state them without loading the native engine. Sized for a laptop: DuckDB's own defaults
 * are 80 % of the machine's memory and 90 % of the free disk for spilling.
 */

/** Seconds a statement may run before it is interrupted (`idv analytics query --timeout-seconds`). */
export const DEFAULT_QUERY_TIMEOUT_SECONDS = 60;
/** DuckDB's memory cap. */
export const MEMORY_LIMIT = '1GB';
/** The most DuckDB may spill to disk, inside the snapshot's own directory. */
export const TEMP_LIMIT = '2GB';
