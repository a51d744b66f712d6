/**
 * Builds the result documents (§2.5) of simulated transactions: the sections a product implies, fake
 * but well-formed personal data (deterministic from a seed and clearly fake: specimen names, document
 * numbers starting with SPEC, BSNs starting with 9999), pooled real images and a real PDF report.
 */
import type { ResultValue } from '../shared/api/enums';
import type { VerificationResultDocument } from '../shared/api/schemas';
import { overallOf } from './coherence';
import { buildPdf } from './pdf';
import { createPrng, type Prng } from './prng';
import { type CheckFacts, chooseMessages } from './result-checks';
import { uploadedPages } from './result-images';
import {
  additionalDocumentsSection,
  addUploadedPages,
  digitalSigningSection,
  drivingLicenseSection,
  faceLinkSection,
  faceVerifySection,
  type IdentityFacts,
  identityKindOf,
  identitySection,
  type Outcome,
  payrollTaxStatementSection,
  type ResultInput,
  rightToWorkSection,
  type SectionContext,
  vogSection,
} from './result-sections';

export type { AdditionalDocumentInput, Outcome, ResultInput, VogInput } from './result-sections';

/** Weighted outcome mix of transactions completed without `mock-test`. */
const OUTCOME_MIX: readonly [Outcome, number][] = [
  ['APPROVED', 45],
  ['APPROVED_EU', 12],
  ['APPROVED_NON_EU', 10],
  ['APPROVED_RP', 8],
  ['DISAPPROVED', 15],
  ['TECHNICAL_REJECT', 10],
];

/** A seeded draw from the outcome mix. */
export function drawOutcome(prng: Prng): Outcome {
  let r = prng.next() * OUTCOME_MIX.reduce((s, [, w]) => s + w, 0);
  for (const [outcome, weight] of OUTCOME_MIX) {
    r -= weight;
    if (r < 0) return outcome;
  }
  return 'APPROVED';
}

/** Builds the complete result document of a transaction. Cheap: images come from the shared pool. */
export function buildResult(input: ResultInput): VerificationResultDocument {
  const prng = createPrng(input.seed);
  const variant = prng.int(1000);
  const { sections } = input;
  const unknown = input.controls?.result === 'UNKNOWN';
  const approved = !unknown && input.outcome.startsWith('APPROVED');
  const overall: ResultValue = unknown ? 'UNKNOWN' : approved ? 'APPROVED' : (input.outcome as ResultValue);
  const facts: CheckFacts = {
    ...(input.product !== undefined ? { product: input.product } : {}),
    identity: sections.identity === true,
    face: sections.faceVerify === true || sections.faceLink === true,
    rightToWork: sections.identity === true && sections.rightToWork === true,
    vog: sections.vog !== undefined,
    ...(input.controls ? { controls: input.controls } : {}),
  };
  // The reasons follow from the checks the transaction runs (and the controls' HITs).
  const messages = chooseMessages(prng, overall, facts);
  // The uploads' images come first, as uploaded; the sections add what nobody uploaded.
  const pages = uploadedPages(input.uploads ?? [], identityKindOf(input));
  const uploadedTypes = new Set(pages.map((p) => p.documentType));
  const ctx: SectionContext = {
    input,
    prng,
    overall,
    approved,
    messages,
    images: [],
    variant,
    uploadedTypes,
    facts,
  };
  addUploadedPages(ctx, pages);
  const doc: VerificationResultDocument = {
    transactionId: input.transactionId,
    ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
    // Set from the sections below; here so that it comes first, as in the service's documents.
    result: overall,
  };
  // The order of the builders is fixed: each draws from the PRNG, so a seed repeats its result.
  let person: IdentityFacts | undefined;
  if (sections.identity) {
    const identity = identitySection(ctx);
    doc.identity = identity.section;
    person = identity.facts;
    if (sections.rightToWork) doc.rightToWork = rightToWorkSection(ctx, identity.facts);
  }
  if (sections.faceVerify) doc.faceVerify = faceVerifySection(ctx);
  if (sections.faceLink) doc.faceLink = faceLinkSection(ctx);
  if (sections.vog) doc.vog = vogSection(ctx, sections.vog);
  if (sections.drivingLicense) doc.drivingLicense = drivingLicenseSection(ctx, person);
  const files: NonNullable<VerificationResultDocument['files']> = [];
  if (sections.payrollTaxStatement) {
    doc.payrollTaxStatement = payrollTaxStatementSection(ctx, person, sections.payrollTaxStatement);
    // The uploaded statement comes back as it was uploaded; one asked for on a secure link is generated.
    const uploaded = (input.uploads ?? []).find((u) => u.type === 'PAYROLL_TAX_STATEMENT' && u.data);
    files.push({
      data: uploaded?.data ?? payrollTaxStatementPdf(input).toString('base64'),
      documentType: 'PAYROLL_TAX_STATEMENT',
    });
  }
  if (sections.additionalDocuments) {
    doc.additionalDocuments = additionalDocumentsSection(ctx, person, sections.additionalDocuments);
  }
  if (sections.digitalSigning) {
    doc.digitalSigning = digitalSigningSection(ctx, sections.digitalSigning.linkedTransactions);
  }
  // The overall result and messages follow from the sections (`coherence.ts`); §2.5: messages only for
  // DISAPPROVED or TECHNICAL_REJECT.
  const { result, messages: overallMessages } = overallOf(doc);
  const { transactionId, customerReference, userId, result: _drawn, ...sectionsOf } = doc;
  const final: VerificationResultDocument = {
    transactionId,
    ...(customerReference !== undefined ? { customerReference } : {}),
    ...(userId !== undefined ? { userId } : {}),
    result,
    ...(overallMessages ? { messages: overallMessages } : {}),
    ...sectionsOf,
  };
  return withAttachments(final, input, ctx, files);
}

/** `doc` with its images (uploaded first, then generated) and files (the report first). */
function withAttachments(
  doc: VerificationResultDocument,
  input: ResultInput,
  ctx: SectionContext,
  files: NonNullable<VerificationResultDocument['files']>,
): VerificationResultDocument {
  doc.images = ctx.images;
  doc.files = [
    {
      data: transactionReport(input, doc.result as ResultValue).toString('base64'),
      documentType: 'TRANSACTION_REPORT',
    },
    ...files,
  ];
  return doc;
}

/** The PDF report: identifiers and outcome only, no personal data. */
function transactionReport(input: ResultInput, overall: ResultValue): Buffer {
  return buildPdf('Transaction report (simulated)', [
    `Transaction: ${input.transactionId}`,
    `Product: ${input.product ?? 'FACE_VERIFY'}`,
    `Result: ${overall}`,
    `Completed: ${new Date(input.completedAt).toISOString()}`,
    'Generated by the idv-pipeline service simulator. Not a real verification.',
  ]);
}

/** The uploaded payroll tax statement as the service returns it (a file): a PDF without personal data. */
function payrollTaxStatementPdf(input: ResultInput): Buffer {
  return buildPdf('Payroll tax statement (simulated)', [
    `Transaction: ${input.transactionId}`,
    'Generated by the idv-pipeline service simulator. Not a real statement.',
  ]);
}
