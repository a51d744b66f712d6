/**
 * The V8 memory flags Lambda's Node.js runtime starts a function with, from the function's memory size
 * (its bootstrap script: a tenth of the memory for the young generation, half of that per semi-space, the
 * rest for the old space). A bench worker that stands for the function runs with them, so its garbage is
 * collected as in Lambda; plain Node sizes its heap from the machine's memory and lets garbage pile up
 * far longer (the `many` size profile: 72–75 MiB of peak RSS growth without them, 5.5 with them).
 */
/** Memory of fetch-result as the stack deploys it (`fetchResultMemoryMb` in cdk.json). */
export const FUNCTION_MEMORY_MB = 256;

/** The flags for a function of `memoryMb` (see the module's comment). */
export function lambdaNodeFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}
