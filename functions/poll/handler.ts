/** Placeholder: replaced by the results-pipeline work. Exists so the CDK entry path resolves. */
export const handler = async (): Promise<never> => {
  throw new Error('not implemented');
};
