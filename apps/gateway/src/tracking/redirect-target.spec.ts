import { redirectTarget } from './redirect-target';

describe(redirectTarget.name, () => {
  it('percent-encodes what a Location header cannot carry, as a browser follows the link', () => {
    expect(redirectTarget('https://ru.wikipedia.org/wiki/Москва')).toBe('https://ru.wikipedia.org/wiki/%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0');
    expect(redirectTarget('https://bücher.de/straße?q=é')).toBe('https://xn--bcher-kva.de/stra%C3%9Fe?q=%C3%A9');
    expect(redirectTarget('https://acme.test/a\n b')).toBe('https://acme.test/a%20b');
  });

  it('keeps a link that is already encoded as it is', () => {
    expect(redirectTarget('https://acme.test/p?next=https%3A%2F%2Fb.test%2F&x=1%202#top')).toBe('https://acme.test/p?next=https%3A%2F%2Fb.test%2F&x=1%202#top');
  });

  it('answers null for anything but an http(s) URL', () => {
    for (const url of ['javascript:alert(1)', 'mailto:a@b.test', 'https://', 'not a url', 'ftp://acme.test/']) expect(redirectTarget(url)).toBeNull();
  });
});
