import { applyDomainUpdate, nextTrackingDomainStatus, requestedTrackingDomain, TrackingColumns, trackingBaseUrlFor, trackingOf } from './tracking-domain';

const DEFAULT_HOST = 'track.mailroom.test';

const columns = (overrides: Partial<TrackingColumns> = {}): TrackingColumns => ({
  openTracking: true,
  clickTracking: true,
  trackingDomain: null,
  trackingDomainStatus: null,
  nextCheckAt: new Date('2030-01-01T06:00:00Z'),
  ...overrides,
});

describe('tracking domain', () => {
  describe(trackingOf.name, () => {
    it('shows the default host as verified while no custom domain is set', () => {
      expect(trackingOf(columns(), DEFAULT_HOST)).toEqual({ trackingDomain: DEFAULT_HOST, trackingDomainStatus: 'verified' });
    });

    it('shows the custom domain with its own status', () => {
      expect(trackingOf(columns({ trackingDomain: 'links.acme.test', trackingDomainStatus: 'pending' }), DEFAULT_HOST)).toEqual({
        trackingDomain: 'links.acme.test',
        trackingDomainStatus: 'pending',
      });
    });
  });

  describe(trackingBaseUrlFor.name, () => {
    const verified = columns({ trackingDomain: 'links.acme.test', trackingDomainStatus: 'verified' });

    it('uses the custom host only while it is verified', () => {
      expect(trackingBaseUrlFor(verified, 'https://track.mailroom.test')).toBe('https://links.acme.test');
      expect(trackingBaseUrlFor({ ...verified, trackingDomainStatus: 'pending' }, 'https://track.mailroom.test')).toBe('https://track.mailroom.test');
      expect(trackingBaseUrlFor({ ...verified, trackingDomainStatus: 'failed' }, 'https://track.mailroom.test')).toBe('https://track.mailroom.test');
      expect(trackingBaseUrlFor(columns(), 'https://track.mailroom.test')).toBe('https://track.mailroom.test');
    });

    it('keeps the scheme, port and path prefix of TRACKING_BASE_URL', () => {
      expect(trackingBaseUrlFor(verified, 'http://localhost:3000')).toBe('http://links.acme.test:3000');
      expect(trackingBaseUrlFor(verified, 'https://mailroom.example/mail')).toBe('https://links.acme.test/mail');
      expect(trackingBaseUrlFor(verified, 'https://mailroom.example:8443/a/b')).toBe('https://links.acme.test:8443/a/b');
    });
  });

  describe(nextTrackingDomainStatus.name, () => {
    it('verifies on a pass from any status', () => {
      for (const status of ['pending', 'verified', 'failed'] as const) expect(nextTrackingDomainStatus(status, { result: 'pass' })).toBe('verified');
    });

    it('fails a verified domain whose CNAME is gone, keeps a pending one pending and a failed one failed', () => {
      expect(nextTrackingDomainStatus('verified', { result: 'fail' })).toBe('failed');
      expect(nextTrackingDomainStatus('pending', { result: 'fail', problem: 'elsewhere' })).toBe('pending');
      expect(nextTrackingDomainStatus('failed', { result: 'fail' })).toBe('failed');
    });

    it('changes nothing on a DNS failure', () => {
      for (const status of ['pending', 'verified', 'failed'] as const) expect(nextTrackingDomainStatus(status, { result: 'error', error: 'timeout' })).toBe(status);
    });
  });

  describe(applyDomainUpdate.name, () => {
    const soon = new Date('2030-01-01T00:01:00Z');

    it('sets only the switches given', () => {
      const domain = columns();
      applyDomainUpdate(domain, { openTracking: false }, soon);
      expect(domain).toMatchObject({ openTracking: false, clickTracking: true, trackingDomain: null });
      applyDomainUpdate(domain, { clickTracking: false }, soon);
      expect(domain).toMatchObject({ openTracking: false, clickTracking: false });
    });

    it('starts a new tracking domain pending and pulls the next background check forward', () => {
      const domain = columns();
      applyDomainUpdate(domain, { trackingDomain: 'links.acme.test' }, soon);
      expect(domain).toMatchObject({ trackingDomain: 'links.acme.test', trackingDomainStatus: 'pending', nextCheckAt: soon });
    });

    it('never pushes a sooner check back, and leaves a failed domain (no background checks) unscheduled', () => {
      const sooner = new Date('2029-12-31T23:59:00Z');
      const due = columns({ nextCheckAt: sooner });
      applyDomainUpdate(due, { trackingDomain: 'links.acme.test' }, soon);
      expect(due.nextCheckAt).toBe(sooner);
      const failed = columns({ nextCheckAt: null });
      applyDomainUpdate(failed, { trackingDomain: 'links.acme.test' }, soon);
      expect(failed.nextCheckAt).toBeNull();
    });

    it('keeps the status when the same tracking domain is set again, and restarts it for another one', () => {
      const domain = columns({ trackingDomain: 'links.acme.test', trackingDomainStatus: 'verified' });
      applyDomainUpdate(domain, { trackingDomain: 'links.acme.test' }, soon);
      expect(domain.trackingDomainStatus).toBe('verified');
      applyDomainUpdate(domain, { trackingDomain: 'click.acme.test' }, soon);
      expect(domain).toMatchObject({ trackingDomain: 'click.acme.test', trackingDomainStatus: 'pending' });
    });

    it('goes back to the default host on null', () => {
      const cleared = columns({ trackingDomain: 'links.acme.test', trackingDomainStatus: 'verified' });
      applyDomainUpdate(cleared, { trackingDomain: null }, soon);
      expect(cleared).toMatchObject({ trackingDomain: null, trackingDomainStatus: null });
    });
  });

  describe(requestedTrackingDomain.name, () => {
    const problemOf = (requested: unknown, defaultHost = DEFAULT_HOST): string | null => {
      try {
        requestedTrackingDomain(requested, defaultHost);
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };

    it('reads null, and the default host itself in any case, as the default', () => {
      expect(requestedTrackingDomain(null, DEFAULT_HOST)).toBeNull();
      expect(requestedTrackingDomain(DEFAULT_HOST, DEFAULT_HOST)).toBeNull();
      expect(requestedTrackingDomain('Track.Mailroom.TEST', DEFAULT_HOST)).toBeNull();
    });

    it('takes a default host that is no domain name (TRACKING_BASE_URL on localhost or an IP address)', () => {
      const hostOf = (url: string) => new URL(url).hostname;
      expect(requestedTrackingDomain('localhost', hostOf('http://localhost:3000'))).toBeNull();
      expect(requestedTrackingDomain('LOCALHOST', hostOf('http://localhost:3000'))).toBeNull();
      expect(requestedTrackingDomain('127.0.0.1', hostOf('http://127.0.0.1:3000'))).toBeNull();
      expect(requestedTrackingDomain('::1', hostOf('http://[::1]:3000'))).toBeNull();
      expect(requestedTrackingDomain('[0:0:0:0:0:0:0:1]', hostOf('http://[::1]:3000'))).toBeNull();
      expect(requestedTrackingDomain('bücher.example', hostOf('https://xn--bcher-kva.example'))).toBeNull();
    });

    it('still refuses other dotless names and IP addresses', () => {
      expect(problemOf('localhost')).toMatch(/^trackingDomain: must be a valid domain name/);
      expect(problemOf('intranet', 'localhost')).toMatch(/^trackingDomain: must be a valid domain name/);
      expect(problemOf('127.0.0.2', '127.0.0.1')).toBe('trackingDomain: must be a domain name, not an IP address');
      expect(problemOf('[::2]', '[::1]')).toBe('trackingDomain: must be a domain name, not an IP address');
      expect(problemOf('[localhost]', 'localhost')).toMatch(/^trackingDomain: /);
      expect(problemOf('localhost:3000', 'localhost')).toMatch(/^trackingDomain: /);
      expect(problemOf(7)).toBe('trackingDomain: must be a string');
    });

    it('gives a custom domain in its stored form', () => {
      expect(requestedTrackingDomain('Links.Acme.TEST', DEFAULT_HOST)).toBe('links.acme.test');
      expect(requestedTrackingDomain('klick.bücher.example', DEFAULT_HOST)).toBe('klick.xn--bcher-kva.example');
    });
  });
});
