/**
 * When an SDK token's transaction (§4.11) completes: once the uploads its services need have arrived,
 * whatever their order. FACE_VERIFY needs the selfie challenges (`POST /faceverify`); AUTO_CAPTURE and NFC
 * capture the identity document, which `POST /idverify` uploads with the token's transactionId (a token
 * with no FACE_VERIFY needs that upload too). An upload the services do not need may still join until the
 * transaction completes; each kind of upload is taken once.
 */
import type { SimulatorState, Transaction } from './state';

/** The uploads an SDK transaction waits for. */
export function sdkNeeds(t: Transaction): { readonly face: boolean; readonly identity: boolean } {
  const services = t.sdk?.services ?? [];
  const face = services.includes('FACE_VERIFY');
  const identity = services.includes('AUTO_CAPTURE') || services.includes('NFC') || !face;
  return { face, identity };
}

/** Whether everything `t` waits for has arrived (always, for a transaction not made by an SDK token). */
export function sdkReady(t: Transaction): boolean {
  if (t.origin !== 'sdk') return true;
  const needs = sdkNeeds(t);
  return (!needs.face || t.faceVerified === true) && (!needs.identity || t.identityUploaded === true);
}

/** Schedules the completion of `t` once it has what it needs (and is not scheduled or complete yet). */
export function scheduleWhenReady(state: SimulatorState, t: Transaction): void {
  if (t.state === 'created' && sdkReady(t)) state.schedule(t);
}

/**
 * Why an upload of `kind` cannot join the SDK transaction `t`, or undefined: a completed transaction
 * takes nothing, and each kind of upload comes once.
 */
export function sdkUploadProblem(t: Transaction, kind: 'face' | 'identity'): string | undefined {
  if (t.state === 'completed') return 'is already completed';
  if (kind === 'identity' && t.identityUploaded) return 'already has an identity upload';
  if (kind === 'face' && t.faceVerified) return 'already has a face verify upload';
  return undefined;
}
