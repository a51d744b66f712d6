/**
 * One builder per section of a result document (§2.5). Each takes the shared `SectionContext` (the
 * input, the seeded PRNG, the overall outcome and the image list) and returns its section, adding the
 * images the section implies. `buildResult` in `results.ts` decides which builders run, in a fixed
 * order, so the PRNG draws and therefore the fake data repeat for a seed.
 */
import type { MockTestValue, Product, ResultValue, RtwType } from '../shared/api/enums';
import type { VerificationResultDocument } from '../shared/api/schemas';
import { reasonDisapproves, type SectionName } from './coherence';
import {
  DAY,
  type DocumentKind,
  documentFor,
  documentKindFor,
  fakeDocumentNumber,
  fakePerson,
  isoDate,
  mrzLines,
  type Person,
  RESIDENCE_PERMIT_TYPES,
  yearsAfter,
} from './fake-identity';
import { type ImageSlot, pooledImage } from './images';
import type { Prng } from './prng';
import { type CheckFacts, documentValidationOf, type ResultControls, verificationsOf } from './result-checks';
import { type UploadedPage, type UploadInput, uploadedIdentityKind } from './result-images';

/** The outcome of a transaction: one of the `mock-test` values, also used for the seeded mix. */
export type Outcome = MockTestValue;

/** What a result is built from. */
export interface ResultInput {
  readonly seed: number;
  readonly transactionId: string;
  /** Product of the transaction; absent for a face-verify-only SDK transaction. */
  readonly product?: Product;
  readonly outcome: Outcome;
  /**
   * The outcome came from the `mock-test` header: §1 then fixes the document of APPROVED_EU,
   * APPROVED_NON_EU (a passport) and APPROVED_RP (a residence permit), whatever was uploaded.
   */
  readonly mocked?: boolean;
  readonly customerReference?: string;
  readonly userId?: string;
  readonly rtwType?: RtwType;
  /** Sections to include. */
  readonly sections: {
    readonly identity?: boolean;
    readonly rightToWork?: boolean;
    readonly faceVerify?: boolean;
    readonly faceLink?: boolean;
    readonly vog?: VogInput;
    /** The RTW driving license workflow applied (§4.1, §4.5). */
    readonly drivingLicense?: boolean;
    /**
     * A single payroll tax statement was uploaded; `inputData` when the end user typed it in;
     * `customerReference` of the statement's upload, when it had one.
     */
    readonly payrollTaxStatement?: { readonly inputData: boolean; readonly customerReference?: string };
    readonly additionalDocuments?: readonly AdditionalDocumentInput[];
    readonly digitalSigning?: { readonly linkedTransactions: readonly string[] };
  };
  /** What a simulator control forces on this result (`simulator/result-checks.ts`). */
  readonly controls?: ResultControls;
  /** The LIVE images of a face verify upload lacked the SDK watermark (`validateWatermark`). */
  readonly watermarkRejected?: boolean;
  /** Every uploaded image (identity and face verify uploads), in upload order: results echo them. */
  readonly uploads?: readonly UploadInput[];
  readonly completedAt: number;
}

/** An additional document the transaction captured. */
export interface AdditionalDocumentInput {
  readonly additionalDocumentType: string;
  /** The upload's own customerReference, when it had one. */
  readonly customerReference?: string;
}

/** What a VOG request supplied. */
export interface VogInput {
  readonly createdAt: number;
  /** §4.12: the person already has a VOG and gets the upload link at once. */
  readonly hasExistingVog?: boolean;
  readonly givenNames: string;
  readonly surname: string;
  readonly companyName: string;
  readonly profiles: readonly string[];
}

type Doc = VerificationResultDocument;
type ResultImage = NonNullable<Doc['images']>[number];

/** What every section builder shares. */
export interface SectionContext {
  readonly input: ResultInput;
  readonly prng: Prng;
  /** Overall result of the document. */
  readonly overall: ResultValue;
  readonly approved: boolean;
  /** Messages of a result that is not approved (reason keys). */
  readonly messages: string[];
  readonly images: ResultImage[];
  /** Picks the pooled image variant of this result. */
  readonly variant: number;
  /** Result document types of the uploaded images: a section generates no image of these. */
  readonly uploadedTypes: ReadonlySet<string>;
  /** Which checks the transaction runs (product, sections, controls). */
  readonly facts: CheckFacts;
}

/**
 * The result and messages of one section: the overall verdict, except that a DISAPPROVED result
 * disapproves only the sections its reasons are about (`REASON_SECTIONS` in `coherence.ts`); the others
 * stay APPROVED.
 */
export function verdictOf(
  ctx: SectionContext,
  section: SectionName,
): { result: ResultValue; messages: string[] } {
  if (ctx.overall !== 'DISAPPROVED')
    return {
      result: ctx.overall,
      messages: ctx.overall === 'APPROVED' || ctx.overall === 'UNKNOWN' ? [] : ctx.messages,
    };
  const mine = ctx.messages.filter((m) => reasonDisapproves(m, section));
  return mine.length > 0 ? { result: 'DISAPPROVED', messages: mine } : { result: 'APPROVED', messages: [] };
}

/**
 * The kind of identity document of a result: the uploaded one, else the one the outcome implies; a
 * `mock-test` value that names a document (§1) wins over the upload.
 */
export function identityKindOf(input: ResultInput): DocumentKind {
  const named = input.outcome !== 'APPROVED' && input.outcome.startsWith('APPROVED');
  if (input.mocked && named) return documentKindFor(input.outcome);
  return uploadedIdentityKind(input.uploads ?? []) ?? documentKindFor(input.outcome);
}

/** The common part of a section: result, messages (only when not approved), customerReferences. */
export function sectionBase(ctx: SectionContext, section: SectionName) {
  return {
    ...verdictOf(ctx, section),
    customerReferences: ctx.input.customerReference ? [ctx.input.customerReference] : [],
  };
}

/**
 * Adds a pooled image the simulator generates beyond the uploads (a page nobody uploaded, the portrait
 * cut from a document): it carries no customerReference, since no upload supplied one.
 */
export function addImage(
  ctx: SectionContext,
  slot: ImageSlot,
  documentType: string,
  pageType: string,
  offset = 0,
): void {
  const img = pooledImage(slot, ctx.variant + offset);
  ctx.images.push({
    data: img.base64,
    documentType,
    pageType,
    metadata: { contentType: img.contentType, width: img.width, height: img.height },
  });
}

/** Adds the images of the uploads, each with its own bytes, type, page and customerReference. */
export function addUploadedPages(ctx: SectionContext, pages: readonly UploadedPage[]): void {
  for (const [k, page] of pages.entries()) {
    const pooled = page.data === undefined ? pooledImage(page.slot, ctx.variant + k) : undefined;
    ctx.images.push({
      data: page.data ?? pooled!.base64,
      documentType: page.documentType,
      pageType: page.pageType,
      metadata: pooled
        ? { contentType: pooled.contentType, width: pooled.width, height: pooled.height }
        : { ...page.metadata },
      ...(page.customerReference !== undefined ? { customerReference: page.customerReference } : {}),
    });
  }
}

/** The identity document behind an identity section, reused by the sections that depend on it. */
export interface IdentityFacts {
  readonly person: Person;
  readonly kind: DocumentKind;
  readonly issued: number;
  readonly expiry: number;
}

/** Days a document of `kind` is valid: ten years, five for a residence permit. */
function validityDays(kind: DocumentKind): number {
  return kind === 'RESIDENCE_PERMIT' ? 1826 : 3652;
}

/** `identity` with its document pages, portrait and signature images. */
export function identitySection(ctx: SectionContext): { section: Doc['identity']; facts: IdentityFacts } {
  const { input, prng } = ctx;
  const person = fakePerson(prng, input.completedAt);
  const d = documentFor(input.outcome, prng, identityKindOf(input));
  const base = sectionBase(ctx, 'identity');
  const reason = (key: string) => base.result === 'DISAPPROVED' && base.messages.includes(key);
  // Only an expired document is expired, and it was issued a full validity before it expired; any other
  // document was issued 30 days to most of its validity ago, so it is valid on the day of completion.
  const validity = validityDays(d.kind);
  let issued: number;
  let expiry: number;
  if (reason('DOCUMENT_EXPIRED')) {
    expiry = input.completedAt - (1 + prng.int(300)) * DAY;
    issued = expiry - validity * DAY;
  } else {
    issued = input.completedAt - (30 + prng.int(validity - 400)) * DAY;
    expiry = issued + validity * DAY;
  }
  const number = fakeDocumentNumber(prng);
  const technical = base.result === 'TECHNICAL_REJECT';
  const section = {
    ...base,
    data: {
      name: {
        fullname: `${person.givenNames} ${person.surname}`,
        givenNames: person.givenNames,
        surname: person.surname,
      },
      dateOfBirth: person.dateOfBirth,
      dateOfIssuance: isoDate(issued),
      dateOfExpiry: isoDate(expiry),
      documentType: d.kind,
      documentSubType:
        d.kind === 'PASSPORT'
          ? 'NATIONAL_PASSPORT'
          : d.kind === 'IDENTITY_CARD'
            ? 'NATIONAL_IDENTITY_CARD'
            : 'RESIDENCE_PERMIT_CARD',
      documentNumber: number,
      gender: person.gender,
      issuingStateOrOrganization: d.issuer,
      nationality: d.nationality,
      personalGovernmentId: d.issuer === 'NLD' ? person.bsn : '',
      placeOfBirth: 'Specimenstad',
      ...(d.kind === 'RESIDENCE_PERMIT' ? { residencePermitType: prng.pick(RESIDENCE_PERMIT_TYPES) } : {}),
      mrzLines: mrzLines(d.kind, person, d, number, isoDate(expiry), reason('MRZ_CHECK_FAILED')),
    },
    documentValidation: documentValidationOf(d.kind, input.controls, {
      technical,
      ...(reason('SECURITY_FEATURES_MISSING') ? { missing: prng } : {}),
    }),
    verifications: verificationsOf(prng, base.messages, ctx.facts, technical),
  };
  // An uploaded document keeps exactly its uploaded pages; the pages of one nobody uploaded (a secure
  // link's end user, mock-test) are generated. Portrait and signature are cut from the document.
  const has = (type: string) => ctx.uploadedTypes.has(type);
  if (!has(d.kind)) {
    addImage(ctx, 'documentFront', d.kind, 'FRONT');
    if (d.kind === 'IDENTITY_CARD') addImage(ctx, 'documentBack', d.kind, 'BACK');
    if (d.kind === 'RESIDENCE_PERMIT') addImage(ctx, 'documentBack', d.kind, 'RESIDENCE_PERMIT_STICKERS');
  }
  if (!has('PORTRAIT')) addImage(ctx, 'portrait', 'PORTRAIT', 'ANY');
  if (d.kind !== 'PASSPORT' && !has('SIGNATURE')) addImage(ctx, 'signature', 'SIGNATURE', 'ANY');
  return { section, facts: { person, kind: d.kind, issued, expiry } };
}

/** `rightToWork` under the requested rule set (default RTW_NL), from the identity document. */
export function rightToWorkSection(ctx: SectionContext, facts: IdentityFacts): Doc['rightToWork'] {
  const { input, prng } = ctx;
  const rtwType = input.rtwType ?? 'RTW_NL';
  const start = input.completedAt + 7 * DAY;
  const due = input.completedAt + (180 + prng.int(900)) * DAY;
  const data: Record<string, string> = {
    startDate: isoDate(start),
    endDate: isoDate(due),
    dueDate: isoDate(due),
  };
  if (rtwType === 'RTW_NL') {
    Object.assign(data, {
      vsFromDate: isoDate(facts.issued),
      vsDueDate: isoDate(facts.expiry),
      twvFromDate: isoDate(facts.issued),
      twvDueDate: isoDate(facts.expiry),
      personalGovernmentId: facts.person.bsn,
      employmentRemark:
        facts.kind === 'RESIDENCE_PERMIT' ? 'Arbeid vrij toegestaan, TWV niet vereist' : 'Geen beperkingen',
    });
  } else if (rtwType === 'RTW_BE') {
    data.attachmentDueDate = isoDate(due);
  } else if (rtwType === 'RTW_UK') {
    Object.assign(data, {
      vignetteDueDate: isoDate(due),
      conditions: 'No restrictions on work',
      details: 'Share code not required for this document',
    });
  }
  return { ...sectionBase(ctx, 'rightToWork'), rtwType, data };
}

/**
 * `faceVerify` with two live images and the compare image. LIVE images without the SDK's watermark
 * (`watermarkRejected`) disapprove it with WATERMARK_INVALID, unless the capture was rejected already.
 */
export function faceVerifySection(ctx: SectionContext): Doc['faceVerify'] {
  // Selfies nobody uploaded (a premium secure link's end user, mock-test) are generated.
  if (!ctx.uploadedTypes.has('LIVE') && !ctx.uploadedTypes.has('COMPARE')) {
    addImage(ctx, 'live', 'LIVE', 'ANY');
    addImage(ctx, 'live', 'LIVE', 'ANY', 1);
    addImage(ctx, 'live', 'COMPARE', 'ANY', 2);
  }
  const base = sectionBase(ctx, 'faceVerify');
  if (!ctx.input.watermarkRejected || base.result === 'TECHNICAL_REJECT') return base;
  const messages = base.result === 'DISAPPROVED' ? base.messages : [];
  return { ...base, result: 'DISAPPROVED', messages: [...messages, WATERMARK_REASON] };
}

/** `faceLink` with the `gpsLocation` where the end user took the selfie, and that live image. */
export function faceLinkSection(ctx: SectionContext): Doc['faceLink'] {
  const section = {
    ...sectionBase(ctx, 'faceLink'),
    gpsLocation: { latitude: 52 + ctx.prng.int(1000) / 1000, longitude: 4 + ctx.prng.int(2000) / 1000 },
  };
  // The selfie of the hosted flow is uploaded; otherwise the simulator draws one.
  if (!ctx.uploadedTypes.has('LIVE')) addImage(ctx, 'live', 'LIVE', 'ANY');
  return section;
}

/** `vog`: the request's data as found on the uploaded certificate (no data for a technical reject). */
export function vogSection(ctx: SectionContext, v: VogInput): Doc['vog'] {
  // §4.12: with an existing VOG no new one is requested; the person uploads the one they have.
  const section = {
    createdAt: new Date(v.createdAt).toISOString(),
    status: v.hasExistingVog ? 'UPLOAD_LINK_SENT' : 'VOG_REQUESTED',
    ...sectionBase(ctx, 'vog'),
    ...(ctx.overall === 'TECHNICAL_REJECT'
      ? {}
      : {
          data: {
            givenNames: v.givenNames,
            surname: v.surname,
            dateOfBirth: fakePerson(ctx.prng, ctx.input.completedAt).dateOfBirth,
            dateOfIssuance: isoDate(
              // An existing VOG was issued before the request; a new one after it, by completion.
              v.hasExistingVog
                ? v.createdAt - (30 + ctx.prng.int(330)) * DAY
                : Math.max(v.createdAt, ctx.input.completedAt - DAY),
            ),
            companyName: v.companyName,
            profiles: [...v.profiles],
          },
        }),
  };
  addImage(ctx, 'documentFront', 'PAPER', 'ANY');
  return section;
}

/** The person on the extra documents: the identity document's holder, or a new fake person. */
function holder(ctx: SectionContext, facts: IdentityFacts | undefined): Person {
  return facts?.person ?? fakePerson(ctx.prng, ctx.input.completedAt);
}

function nameOf(p: Person) {
  return { fullname: `${p.givenNames} ${p.surname}`, givenNames: p.givenNames, surname: p.surname };
}

/** `drivingLicense` of the RTW driving license workflow, with the licence's front and back images. */
export function drivingLicenseSection(
  ctx: SectionContext,
  facts: IdentityFacts | undefined,
): Doc['drivingLicense'] {
  const { input, prng } = ctx;
  const person = holder(ctx, facts);
  // Issued on or after the holder's 18th birthday, at most about 8 years ago: valid for ten years.
  const licensedDays = Math.floor((input.completedAt - yearsAfter(person.dateOfBirth, 18)) / DAY);
  const issued = input.completedAt - prng.int(Math.min(3000, licensedDays) + 1) * DAY;
  const expiry = issued + 3652 * DAY;
  const number = fakeDocumentNumber(prng);
  if (!ctx.uploadedTypes.has('DRIVING_LICENSE')) {
    addImage(ctx, 'documentFront', 'DRIVING_LICENSE', 'FRONT', 1);
    addImage(ctx, 'documentBack', 'DRIVING_LICENSE', 'BACK', 1);
  }
  return {
    ...sectionBase(ctx, 'drivingLicense'),
    data: {
      name: nameOf(person),
      dateOfBirth: person.dateOfBirth,
      dateOfIssuance: isoDate(issued),
      dateOfExpiry: isoDate(expiry),
      documentNumber: number,
      issuingStateOrOrganization: 'NLD',
      personalGovernmentId: person.bsn,
      placeOfBirth: 'Specimenstad',
      class: 'B',
      classes: [
        { name: 'AM', dateOfExpiry: isoDate(expiry) },
        { name: 'B', dateOfExpiry: isoDate(expiry) },
      ],
    },
  };
}

/** `payrollTaxStatement` from the one uploaded statement; `inputData` when the end user gave it. */
export function payrollTaxStatementSection(
  ctx: SectionContext,
  facts: IdentityFacts | undefined,
  statement: { readonly inputData: boolean; readonly customerReference?: string },
): Doc['payrollTaxStatement'] {
  const { input, prng } = ctx;
  const withInputData = statement.inputData;
  const base = sectionBase(ctx, 'payrollTaxStatement');
  const person = holder(ctx, facts);
  const applyPayrollTax = prng.next() < 0.8;
  const payrollTaxDate = isoDate(input.completedAt + 14 * DAY);
  const signDate = isoDate(input.completedAt - (1 + prng.int(10)) * DAY);
  return {
    ...base,
    // The statement comes back as a file (§2.5 files have no reference): its upload's reference is here.
    ...(statement.customerReference !== undefined
      ? { customerReferences: [statement.customerReference] }
      : {}),
    data: {
      personalGovernmentIdPresent: true,
      signDatePresent: true,
      nameAddressResidencePresent: true,
      signaturePresent: true,
      applyPayrollTax,
      payrollTaxDate,
      signDate,
      personalGovernmentId: person.bsn,
    },
    ...(withInputData
      ? {
          inputData: {
            applyPayrollTax,
            addressInNld: true,
            city: 'Specimenstad',
            houseNumber: String(1 + prng.int(200)),
            houseNumberAddition: 'A',
            payrollTaxDate,
            postalCode: '9999 ZZ',
            street: 'Voorbeeldstraat',
            country: 'NLD',
            bsn: person.bsn,
            dateOfBirth: person.dateOfBirth,
            fullname: nameOf(person).fullname,
            nationality: 'NLD',
          },
        }
      : {}),
  };
}

/** One `additionalDocuments` entry per captured additional document. */
export function additionalDocumentsSection(
  ctx: SectionContext,
  facts: IdentityFacts | undefined,
  documents: readonly AdditionalDocumentInput[],
): Doc['additionalDocuments'] {
  const person = holder(ctx, facts);
  return documents.map((d) => {
    const base = sectionBase(ctx, 'additionalDocuments');
    return {
      additionalDocumentType: d.additionalDocumentType,
      customerReferences: d.customerReference !== undefined ? [d.customerReference] : base.customerReferences,
      result: base.result,
      messages: base.messages,
      data: {
        socialSecurityNumber: person.bsn,
        personalGovernmentId: person.bsn,
        name: nameOf(person),
      },
    };
  });
}

/** `digitalSigning`: the signature was placed; `linkedTransactions` names the transactions it signs for. */
export function digitalSigningSection(
  ctx: SectionContext,
  linkedTransactions: readonly string[],
): Doc['digitalSigning'] {
  return { ...sectionBase(ctx, 'digitalSigning'), linkedTransactions: [...linkedTransactions] };
}

/** Reason key of a face verify upload whose LIVE images lack the FACE_VERIFY SDK's watermark. */
export const WATERMARK_REASON = 'WATERMARK_INVALID';
