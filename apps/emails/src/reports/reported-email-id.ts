/**
 * What is wrong with the `emailId` of a reported bounce or complaint, or null
 * when it is a string or left out (null included). One of another type (a
 * number, an array) names no email, so the report is applied to the
 * suppression list alone; the consumer says so, or the publisher would never
 * learn why its reports mark no email.
 */
export function emailIdProblem(data: Record<string, unknown>): string | null {
  return data.emailId == null || typeof data.emailId === 'string' ? null : 'emailId: must be a string; the report was applied to the suppression list alone';
}
