import MailComposer from 'nodemailer/lib/mail-composer';
import { mimeBytes } from '../message/mime-bytes';
import { ReportOf, reportFileName, ReportSubmitter } from './tlsrpt-report';

/**
 * A report as RFC 8460 §5.3 mails it: multipart/report with report-type="tlsrpt", the Subject and the
 * TLS-Report-Domain and TLS-Report-Submitter header fields it names, a short text part, and the gzipped JSON as an
 * application/tlsrpt+gzip attachment named as §5.3 says. Composed with nodemailer's MailComposer, whose root is made
 * multipart/report (it would write multipart/mixed).
 */
export function reportEmail(of: ReportOf, by: ReportSubmitter, from: string, to: string, gzipped: Buffer): Buffer {
  const composer = new MailComposer({
    from,
    to,
    subject: `Report Domain: ${of.policyDomain} Submitter: ${by.submitter} Report-ID: <${of.reportId}>`,
    headers: [
      { key: 'TLS-Report-Domain', value: of.policyDomain },
      { key: 'TLS-Report-Submitter', value: by.submitter },
    ],
    text: `This is an aggregate TLS report (RFC 8460) from ${by.organizationName} for ${of.policyDomain}, ${of.day} (UTC).\r\n`,
    attachments: [{ filename: reportFileName(of, by.submitter), content: gzipped, contentType: 'application/tlsrpt+gzip' }],
    disableUrlAccess: true,
    disableFileAccess: true,
  });
  const root = composer.compile();
  root.setHeader('Content-Type', 'multipart/report; report-type="tlsrpt"');
  return mimeBytes(root);
}
