/** Client credentials of the simulated account the benches use (local only, not a secret). */
export const BENCH_CREDENTIALS = { clientId: 'bench-client', clientSecret: 'bench-client-secret' };
