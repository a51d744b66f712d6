/**
 * Checks a built result against every rule of `COHERENCE_RULES` (`coherence.ts`), from the transaction it
 * was built for: a violation names its rule and what is wrong (never a value of the result). The
 * property test runs it over more than 10,000 generated results; it reads the result as a consumer
 * would and decides presence from the transaction's own facts, not from the builder's choices.
 */
import {
  DOCUMENT_SECURITY_FEATURE_VALUES,
  RESULT_FILE_DOCUMENT_TYPES,
  RESULT_IMAGE_DOCUMENT_TYPES,
  RESULT_IMAGE_PAGE_TYPES,
  RESULT_VALUES,
  RTW_TYPES,
  VERIFICATION_RESULTS,
} from '../shared/api/enums';
import type { VerificationResultDocument } from '../shared/api/schemas';
import { reasonDisapproves, type SectionName, sectionVerdicts } from './coherence';
import { checkDigit, isoDate, yearsAfter } from './fake-identity';
import { CHECK_NAMES, carriedFeatures, HIT_REASON, SECURITY_FEATURES } from './result-checks';
import type { Transaction } from './state';

/** One broken rule. */
export interface Violation {
  readonly rule: string;
  readonly problem: string;
}

/** What a result was built from: the transaction, when it completed, the customer setting. */
export interface CheckedTransaction {
  readonly transaction: Transaction;
  readonly completedAt: number;
  readonly drivingLicenseCheck: boolean;
}

type Doc = VerificationResultDocument;
type Obj = Record<string, unknown>;

const PREMIUM = ['IDV_PREMIUM', 'RTW_PREMIUM'];
const RTW = ['RTW_STANDARD', 'RTW_PREMIUM'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const JUDGED_WITH_MESSAGES = ['DISAPPROVED', 'TECHNICAL_REJECT'];

/** Every violation of the coherence rules by `doc`, the result of `checked`. */
export function coherenceViolations(doc: Doc, checked: CheckedTransaction): Violation[] {
  const out: Violation[] = [];
  const fail = (rule: string, problem: string) => out.push({ rule, problem });
  checkPresence(doc, checked, fail);
  checkFields(doc, fail);
  checkReasons(doc, fail);
  checkOverall(doc, fail);
  checkVerifications(doc, checked, fail);
  checkDates(doc, checked, fail);
  checkHolder(doc, checked, fail);
  checkFeatures(doc, checked, fail);
  checkMrz(doc, fail);
  checkImages(doc, checked, fail);
  return out;
}

type Fail = (rule: string, problem: string) => void;

function checkPresence(doc: Doc, { transaction: t, drivingLicenseCheck }: CheckedTransaction, fail: Fail) {
  const product = t.product ?? '';
  const identity = product !== 'FACE_LINK' && !t.vog && (t.origin !== 'sdk' || t.identityUploaded === true);
  const requested = t.additionalDocuments ?? [];
  const dlUpload = t.uploads.some(
    (u) => u.type === 'ADDITIONAL' && u.additionalDocumentType === 'DRIVING_LICENSE',
  );
  const statements =
    t.uploads.filter((u) => u.type === 'PAYROLL_TAX_STATEMENT').length +
    requested.filter((d) => d === 'PAYROLL_TAX_STATEMENT').length;
  const expected: Record<string, boolean> = {
    identity,
    rightToWork: identity && RTW.includes(product),
    faceVerify:
      (t.origin === 'sdk' && t.faceVerified === true) ||
      (PREMIUM.includes(product) && (!t.mock || t.origin === 'secureLink')),
    faceLink: product === 'FACE_LINK',
    vog: t.vog !== undefined,
    digitalSigning: t.controls?.digitalSigning === true,
    drivingLicense:
      !t.mock &&
      drivingLicenseCheck &&
      identity &&
      RTW.includes(product) &&
      (requested.includes('DRIVING_LICENSE') || dlUpload),
    payrollTaxStatement: !t.mock && statements === 1,
  };
  for (const [section, want] of Object.entries(expected)) {
    const has = (doc as Obj)[section] !== undefined;
    if (has !== want) fail('presence', `${section} ${has ? 'present' : 'absent'} for ${t.origin} ${product}`);
  }
  if (doc.additionalDocuments !== undefined) {
    if (t.mock) fail('presence', 'additionalDocuments under mock-test');
    const known = new Set([
      ...requested,
      ...t.uploads.filter((u) => u.type === 'ADDITIONAL').map((u) => u.additionalDocumentType),
    ]);
    for (const d of doc.additionalDocuments) {
      if (!known.has(d.additionalDocumentType as string))
        fail('presence', 'an additional document nobody asked for');
    }
  }
}

/** §2.5 fields per section: required, then optional (`?`); `data` fields likewise. */
const SHAPES: Readonly<Record<string, { fields: string; data?: string }>> = {
  identity: {
    fields: 'result messages customerReferences data documentValidation verifications',
    data: 'name dateOfBirth dateOfIssuance dateOfExpiry documentType documentSubType documentNumber gender issuingStateOrOrganization nationality personalGovernmentId placeOfBirth residencePermitType? mrzLines',
  },
  rightToWork: {
    fields: 'result messages customerReferences rtwType data',
    data: 'vsFromDate? vsDueDate? twvFromDate? twvDueDate? personalGovernmentId? employmentRemark? attachmentDueDate? vignetteDueDate? conditions? details? startDate endDate dueDate',
  },
  faceVerify: { fields: 'result messages customerReferences' },
  faceLink: { fields: 'result messages customerReferences gpsLocation' },
  vog: {
    fields: 'createdAt status result messages customerReferences data?',
    data: 'givenNames surname dateOfBirth dateOfIssuance companyName profiles',
  },
  payrollTaxStatement: {
    fields: 'result messages customerReferences data inputData?',
    data: 'personalGovernmentIdPresent signDatePresent nameAddressResidencePresent signaturePresent applyPayrollTax payrollTaxDate signDate personalGovernmentId',
  },
  drivingLicense: {
    fields: 'result messages customerReferences data',
    data: 'name dateOfBirth dateOfIssuance dateOfExpiry documentNumber issuingStateOrOrganization personalGovernmentId placeOfBirth class classes',
  },
  digitalSigning: { fields: 'result messages customerReferences linkedTransactions' },
  additionalDocuments: {
    fields: 'additionalDocumentType customerReferences result messages data',
    data: 'socialSecurityNumber personalGovernmentId name',
  },
};
const TOP = 'transactionId customerReference? userId? result messages? images files'.split(' ');
const DATE_FIELDS = /^(dateOf\w+|\w+Date|\w+FromDate|\w+DueDate)$/;

function keysMatch(where: string, value: unknown, spec: readonly string[], fail: Fail) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail('section-fields', `${where} is not an object`);
    return;
  }
  const allowed = new Set(spec.map((f) => f.replace('?', '')));
  for (const key of Object.keys(value))
    if (!allowed.has(key)) fail('section-fields', `${where}.${key} is no §2.5 field`);
  for (const f of spec) {
    if (!f.endsWith('?') && (value as Obj)[f] === undefined)
      fail('section-fields', `${where}.${f} is missing`);
  }
  for (const [key, v] of Object.entries(value)) {
    if (DATE_FIELDS.test(key) && typeof v === 'string' && !DATE.test(v))
      fail('section-fields', `${where}.${key} is no date`);
  }
}

function oneOf(where: string, value: unknown, values: readonly string[], fail: Fail) {
  if (typeof value !== 'string' || !values.includes(value))
    fail('section-fields', `${where} is no §2.1 value`);
}

function checkFields(doc: Doc, fail: Fail) {
  keysMatch('result', doc, [...TOP, ...Object.keys(SHAPES).map((s) => `${s}?`)], fail);
  oneOf('result', doc.result, RESULT_VALUES, fail);
  for (const [section, shape] of Object.entries(SHAPES)) {
    const value = (doc as Obj)[section];
    if (value === undefined) continue;
    const entries = (Array.isArray(value) ? value : [value]) as Obj[];
    for (const e of entries) {
      keysMatch(section, e, shape.fields.split(' '), fail);
      oneOf(`${section}.result`, e.result, RESULT_VALUES, fail);
      if (shape.data && e.data !== undefined)
        keysMatch(`${section}.data`, e.data, shape.data.split(' '), fail);
    }
  }
  if (doc.vog?.data !== undefined && doc.vog.result === 'TECHNICAL_REJECT') {
    fail('section-fields', 'vog.data on a technical reject');
  }
  if (doc.rightToWork) oneOf('rightToWork.rtwType', doc.rightToWork.rtwType, RTW_TYPES, fail);
  const dv = doc.identity?.documentValidation as Obj | undefined;
  if (dv) {
    keysMatch('identity.documentValidation', dv, SECURITY_FEATURES, fail);
    for (const f of SECURITY_FEATURES)
      oneOf(`documentValidation.${f}`, dv[f], DOCUMENT_SECURITY_FEATURE_VALUES, fail);
  }
  const v = doc.identity?.verifications;
  if (v) {
    oneOf('sanctionList.verificationResult', v.sanctionList?.verificationResult, VERIFICATION_RESULTS, fail);
    oneOf(
      'lostAndStolen.verificationResult',
      v.lostAndStolen?.verificationResult,
      VERIFICATION_RESULTS,
      fail,
    );
    oneOf('sanctionList.result', v.sanctionList?.result, RESULT_VALUES, fail);
  }
  for (const img of doc.images ?? []) {
    keysMatch('images[]', img, ['data', 'documentType', 'metadata', 'pageType', 'customerReference?'], fail);
    oneOf('images[].documentType', img.documentType, RESULT_IMAGE_DOCUMENT_TYPES, fail);
    oneOf('images[].pageType', img.pageType, RESULT_IMAGE_PAGE_TYPES, fail);
  }
  for (const file of doc.files ?? []) {
    keysMatch('files[]', file, ['data', 'documentType'], fail);
    oneOf('files[].documentType', file.documentType, RESULT_FILE_DOCUMENT_TYPES, fail);
  }
}

function checkReasons(doc: Doc, fail: Fail) {
  const verdicts = sectionVerdicts(doc);
  for (const v of verdicts) {
    const messages = v.messages ?? [];
    const withMessages = JUDGED_WITH_MESSAGES.includes(v.result ?? '');
    if (withMessages !== messages.length > 0) {
      fail('section-messages', `${v.section} is ${v.result} with ${messages.length} messages`);
    }
    if (v.result === 'DISAPPROVED') {
      for (const m of messages) {
        if (!reasonDisapproves(m, v.section)) fail('reason-owner', `${m} disapproves ${v.section}`);
      }
    }
    if (doc.result === 'TECHNICAL_REJECT' && v.result !== 'TECHNICAL_REJECT') {
      fail('section-messages', `${v.section} is ${v.result} in a technical reject`);
    }
  }
  if (doc.result !== 'DISAPPROVED') return;
  for (const v of verdicts) {
    const about = (doc.messages ?? []).filter((m) => reasonDisapproves(m, v.section as SectionName));
    if (about.length === 0 && v.result === 'DISAPPROVED') {
      fail('reason-reach', `${v.section} is DISAPPROVED by no reason about it`);
    }
    if (about.length > 0 && v.result !== 'DISAPPROVED') {
      fail('reason-reach', `${v.section} is ${v.result} under ${about.join(', ')}`);
    }
  }
}

function checkOverall(doc: Doc, fail: Fail) {
  const rank = ['APPROVED', 'UNKNOWN', 'DISAPPROVED', 'TECHNICAL_REJECT'];
  const verdicts = sectionVerdicts(doc);
  const worst = verdicts.reduce((w, v) => Math.max(w, rank.indexOf(v.result ?? 'APPROVED')), 0);
  if (doc.result !== rank[worst]) fail('overall', `overall ${doc.result}, worst section ${rank[worst]}`);
  const expected = new Set(verdicts.filter((v) => v.result === doc.result).flatMap((v) => v.messages ?? []));
  const withMessages = JUDGED_WITH_MESSAGES.includes(doc.result ?? '');
  if (!withMessages && doc.messages !== undefined) fail('overall', `messages on a ${doc.result} result`);
  if (withMessages) {
    const got = doc.messages ?? [];
    const same = got.length === expected.size && got.every((m) => expected.has(m));
    if (!same) fail('overall', 'overall messages are not those of the sections');
  }
}

function checkVerifications(doc: Doc, { transaction: t }: CheckedTransaction, fail: Fail) {
  const identity = doc.identity;
  if (!identity?.verifications) return;
  const messages = identity.messages ?? [];
  const disapproved = identity.result === 'DISAPPROVED';
  for (const check of CHECK_NAMES) {
    const got =
      check === 'sanctionList'
        ? identity.verifications.sanctionList?.verificationResult
        : identity.verifications.lostAndStolen?.verificationResult;
    const forced = t.controls?.checks?.[check];
    const hit = disapproved && messages.includes(HIT_REASON[check]);
    if (forced !== undefined) {
      if (got !== forced) fail('verifications', `${check} is ${got}, the control forced ${forced}`);
      continue;
    }
    if ((got === 'HIT') !== hit)
      fail('verifications', `${check} is ${got} with messages ${messages.join(',')}`);
    const lookedUp = t.product !== 'IDV_LITE' && identity.result !== 'TECHNICAL_REJECT';
    if ((got === 'NOT_EXECUTED') === lookedUp)
      fail('verifications', `${check} is ${got} for ${t.product} ${identity.result}`);
  }
  const sanction = identity.verifications.sanctionList;
  const mapped = { HIT: 'DISAPPROVED', NO_HIT: 'APPROVED', NOT_EXECUTED: 'UNKNOWN' } as Record<
    string,
    string
  >;
  if (sanction && sanction.result !== mapped[sanction.verificationResult ?? '']) {
    fail('verifications', `sanctionList result ${sanction.result} for ${sanction.verificationResult}`);
  }
  if (sanction && (sanction.verificationResult === 'HIT') !== (sanction.foundOnLists ?? []).length > 0) {
    fail('verifications', 'foundOnLists does not follow the sanction HIT');
  }
  const lost = identity.verifications.lostAndStolen;
  if (lost && (lost.verificationResult === 'HIT') !== (lost.messages ?? []).length > 0) {
    fail('verifications', 'lostAndStolen messages do not follow its HIT');
  }
}

function checkDates(doc: Doc, { completedAt }: CheckedTransaction, fail: Fail) {
  const today = isoDate(completedAt);
  const data = doc.identity?.data;
  if (data) {
    const { dateOfBirth: born = '', dateOfIssuance: issued = '', dateOfExpiry: expiry = '' } = data;
    if (!(born < issued && issued <= expiry))
      fail('document-dates', 'identity: not born < issued <= expires');
    if (issued > today) fail('document-dates', 'identity issued after completion');
    const expired = expiry < today;
    const reason =
      doc.identity?.result === 'DISAPPROVED' && (doc.identity.messages ?? []).includes('DOCUMENT_EXPIRED');
    if (expired !== reason)
      fail(
        'document-dates',
        `identity ${expired ? 'expired' : 'valid'} ${reason ? 'with' : 'without'} DOCUMENT_EXPIRED`,
      );
  }
  const dl = doc.drivingLicense?.data;
  if (dl) {
    const { dateOfBirth: born = '', dateOfIssuance: issued = '', dateOfExpiry: expiry = '' } = dl;
    if (!(born < issued && issued <= today && today <= expiry))
      fail('document-dates', 'driving licence dates');
    if ((dl.classes ?? []).some((c) => (c.dateOfExpiry ?? '') < today))
      fail('document-dates', 'an expired licence class');
  }
  const vog = doc.vog;
  if (vog?.data) {
    if ((vog.data.dateOfIssuance ?? '') > today) fail('document-dates', 'VOG issued after completion');
    if ((vog.createdAt ?? '') > new Date(completedAt).toISOString())
      fail('document-dates', 'VOG requested after completion');
  }
  const signDate = doc.payrollTaxStatement?.data?.signDate;
  if (signDate !== undefined && signDate > today) fail('document-dates', 'statement signed after completion');
}

function checkHolder(doc: Doc, { completedAt }: CheckedTransaction, fail: Fail) {
  const adult = (born: string | undefined, where: string) => {
    if (born === undefined || yearsAfter(born, 18) > completedAt)
      fail('holder-age', `${where}: holder under 18`);
  };
  const id = doc.identity?.data;
  if (id) adult(id.dateOfBirth, 'identity');
  if (doc.vog?.data) adult(doc.vog.data.dateOfBirth, 'vog');
  const dl = doc.drivingLicense?.data;
  if (dl) {
    adult(dl.dateOfBirth, 'drivingLicense');
    if (dl.dateOfBirth && isoDate(yearsAfter(dl.dateOfBirth, 18)) > (dl.dateOfIssuance ?? '')) {
      fail('holder-age', 'driving licence issued before the 18th birthday');
    }
  }
  // One holder: the other documents name the identity document's holder.
  const holder = id ?? dl;
  if (!holder) return;
  const fullname = holder.name?.fullname;
  const ids = new Set<string>();
  if (dl) {
    if (dl.name?.fullname !== fullname || dl.dateOfBirth !== holder.dateOfBirth)
      fail('holder-age', 'driving licence names another person');
    ids.add(dl.personalGovernmentId ?? '');
  }
  const input = doc.payrollTaxStatement?.inputData;
  if (input && (input.fullname !== fullname || input.dateOfBirth !== holder.dateOfBirth)) {
    fail('holder-age', 'statement input names another person');
  }
  if (input) ids.add(input.bsn ?? '');
  if (doc.payrollTaxStatement?.data) ids.add(doc.payrollTaxStatement.data.personalGovernmentId ?? '');
  for (const a of doc.additionalDocuments ?? []) {
    if (a.data?.name?.fullname !== fullname)
      fail('holder-age', 'an additional document names another person');
    ids.add(a.data?.personalGovernmentId ?? '');
  }
  if (id?.personalGovernmentId) ids.add(id.personalGovernmentId);
  if (ids.size > 1) fail('holder-age', 'personal government ids differ between sections');
}

function checkFeatures(doc: Doc, { transaction: t }: CheckedTransaction, fail: Fail) {
  const dv = doc.identity?.documentValidation as Obj | undefined;
  const kind = doc.identity?.data?.documentType;
  if (!dv || !kind) return;
  const forced = t.controls?.documentValidation ?? {};
  const technical = doc.identity?.result === 'TECHNICAL_REJECT';
  const missingReason =
    doc.identity?.result === 'DISAPPROVED' &&
    (doc.identity.messages ?? []).includes('SECURITY_FEATURES_MISSING');
  let notFound = 0;
  for (const f of SECURITY_FEATURES) {
    const want = (forced as Obj)[f];
    if (want !== undefined) {
      if (dv[f] !== want) fail('security-features', `${f} is ${dv[f]}, the control forced ${want}`);
      continue;
    }
    const carried = !technical && carriedFeatures(kind).includes(f);
    if (!carried && dv[f] !== 'NOT_APPLICABLE')
      fail('security-features', `${f} APPROVED, not carried by ${kind}`);
    if (carried && dv[f] !== 'APPROVED') notFound++;
  }
  if (missingReason !== notFound > 0) {
    fail(
      'security-features',
      `${notFound} carried features not found ${missingReason ? 'with' : 'without'} SECURITY_FEATURES_MISSING`,
    );
  }
}

/** The MRZ fields and check digits of TD3 (passport) or TD1 (cards) lines. */
function readMrz(lines: readonly string[]) {
  if (lines.length === 2 && lines.every((l) => l.length === 44)) {
    const [l1, l2] = lines as [string, string];
    return {
      code: l1.slice(0, 2),
      number: l2.slice(0, 9),
      nationality: l2.slice(10, 13),
      born: l2.slice(13, 19),
      gender: l2[20],
      expiry: l2.slice(21, 27),
      checks: [
        [l2.slice(0, 9), l2[9]],
        [l2.slice(13, 19), l2[19]],
        [l2.slice(21, 27), l2[27]],
        [l2.slice(28, 42), l2[42]],
        [l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, 43), l2[43]],
      ] as [string, string | undefined][],
    };
  }
  if (lines.length === 3 && lines.every((l) => l.length === 30)) {
    const [l1, l2] = lines as [string, string, string];
    return {
      code: l1.slice(0, 2),
      number: l1.slice(5, 14),
      nationality: l2.slice(15, 18),
      born: l2.slice(0, 6),
      gender: l2[7],
      expiry: l2.slice(8, 14),
      checks: [
        [l1.slice(5, 14), l1[14]],
        [l2.slice(0, 6), l2[6]],
        [l2.slice(8, 14), l2[14]],
        [l1.slice(5, 30) + l2.slice(0, 7) + l2.slice(8, 15) + l2.slice(18, 29), l2[29]],
      ] as [string, string | undefined][],
    };
  }
  return undefined;
}

function checkMrz(doc: Doc, fail: Fail) {
  const data = doc.identity?.data;
  if (!data) return;
  const mrz = readMrz(data.mrzLines ?? []);
  if (!mrz) {
    fail('mrz', 'mrzLines are neither TD3 nor TD1');
    return;
  }
  const yymmdd = (iso = '') => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
  const code = { PASSPORT: 'P<', IDENTITY_CARD: 'I<', RESIDENCE_PERMIT: 'IR' }[data.documentType ?? ''];
  if (mrz.code !== code) fail('mrz', `document code ${mrz.code} for ${data.documentType}`);
  if (mrz.number.replace(/<+$/, '') !== data.documentNumber) fail('mrz', 'document number differs from data');
  if (mrz.born !== yymmdd(data.dateOfBirth)) fail('mrz', 'date of birth differs from data');
  if (mrz.expiry !== yymmdd(data.dateOfExpiry)) fail('mrz', 'date of expiry differs from data');
  if (mrz.nationality !== data.nationality) fail('mrz', 'nationality differs from data');
  if (mrz.gender !== data.gender) fail('mrz', 'gender differs from data');
  const wrong = mrz.checks.filter(([field, digit]) => checkDigit(field) !== digit).length;
  const reason =
    doc.identity?.result === 'DISAPPROVED' && (doc.identity.messages ?? []).includes('MRZ_CHECK_FAILED');
  if (wrong > 0 !== reason)
    fail('mrz', `${wrong} wrong check digits ${reason ? 'with' : 'without'} MRZ_CHECK_FAILED`);
}

function checkImages(doc: Doc, { transaction: t }: CheckedTransaction, fail: Fail) {
  const images = doc.images ?? [];
  const uploaded = t.uploads.filter((u) => u.type !== 'PAYROLL_TAX_STATEMENT');
  for (const [i, u] of uploaded.entries()) {
    const img = images[i];
    if (!img) {
      fail('images', `upload ${i} does not come back`);
      continue;
    }
    if (u.data !== undefined && img.data !== u.data)
      fail('images', `upload ${i} comes back with other bytes`);
    if (img.customerReference !== u.customerReference)
      fail('images', `upload ${i} comes back with another reference`);
    if (u.metadata && (img.metadata as Obj | undefined)?.contentType !== u.metadata.contentType) {
      fail('images', `upload ${i} comes back with another content type`);
    }
  }
  for (const img of images.slice(uploaded.length)) {
    if (img.customerReference !== undefined)
      fail('images', 'a generated picture carries a customerReference');
  }
  const statement = t.uploads.find((u) => u.type === 'PAYROLL_TAX_STATEMENT');
  const file = doc.files?.find((f) => f.documentType === 'PAYROLL_TAX_STATEMENT');
  if (doc.payrollTaxStatement && statement?.data !== undefined && file?.data !== statement.data) {
    fail('images', 'the uploaded statement does not come back as its file');
  }
}
