import 'reflect-metadata';
import { DomainError } from '@mailroom/errors';
import { validateDto } from '../../validation/validate-dto';
import { EmailSendDto } from './email-send.dto';

function filenameProblem(filename: string): string | null {
  try {
    validateDto(EmailSendDto, { from: 'a@b.test', to: 'c@d.test', subject: 's', text: 't', attachments: [{ filename, content: 'aGk=' }] });
    return null;
  } catch (error) {
    return (error as DomainError).message;
  }
}

describe('EmailSendDto attachment filename', () => {
  const refusal = 'attachments[0].filename: must be a file name without a path: no / or \\, no control characters and no bidirectional formatting characters';

  it('refuses every control character the README rules out, the C1 ones (U+0080 to U+009F) as well as the ASCII ones', () => {
    for (const control of ['\x01', '\x1f', '\x7f', '\x80', '\x85', '\x9f']) expect(filenameProblem(`report${control}.pdf`)).toBe(refusal);
  });

  it('refuses the bidirectional formatting characters that make "invoice\u202Efdp.exe" read as "invoiceexe.pdf"', () => {
    for (const mark of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069']) expect(filenameProblem(`invoice${mark}fdp.exe`)).toBe(refusal);
  });

  it('takes a name in any script, and refuses a path', () => {
    for (const name of ['report.pdf', 'Übersicht 2025.xlsx', '報告書.pdf', '\xa0x.txt', 'résumé.docx', 'تقرير.pdf', 'דוח.pdf']) expect(filenameProblem(name)).toBeNull();
    expect(filenameProblem('a/b.txt')).toBe(refusal);
    expect(filenameProblem('a\\b.txt')).toBe(refusal);
  });
});
