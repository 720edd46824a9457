// Crane's metric-adapter flag shapes (gocrane/crane cmd/metric-adapter/main.go, v0.6 to HEAD:
// --remote-adapter bool, --remote-adapter-service-{namespace,name,port}, port default 6443, and
// pkg/metricprovider/remote.go's https://<name>.<namespace>.svc:<port>) accepted beside ours, and the
// adapter's Crane-parity switches.
import { expect } from 'chai';
import { parseFlags, UsageError } from '../../../src/config/flags.ts';
import { ADAPTER_FLAGS } from '../../../src/adapter/flags.ts';
import { remoteAdapterUrl } from '../../../src/adapter/start-from-flags.ts';

const parse = (...argv: string[]) => parseFlags(ADAPTER_FLAGS, argv);

describe('adapter flags: Crane aliases and parity switches', () => {
  it('--remote-adapter=true with the service flags is the Service URL Crane builds', () => {
    expect(remoteAdapterUrl(parse('--remote-adapter=true', '--remote-adapter-service-namespace=crane-system', '--remote-adapter-service-name=prometheus-adapter', '--remote-adapter-service-port=443')))
      .to.equal('https://prometheus-adapter.crane-system.svc:443');
    // Crane's default port.
    expect(remoteAdapterUrl(parse('--remote-adapter=true', '--remote-adapter-service-namespace=monitoring', '--remote-adapter-service-name=prometheus-adapter')))
      .to.equal('https://prometheus-adapter.monitoring.svc:6443');
  });
  it('our URL form is unchanged; false or unset means no remote adapter', () => {
    expect(remoteAdapterUrl(parse('--remote-adapter=https://pa.monitoring.svc:443'))).to.equal('https://pa.monitoring.svc:443');
    expect(remoteAdapterUrl(parse('--remote-adapter=false', '--remote-adapter-service-name=ignored'))).to.equal(undefined);
    expect(remoteAdapterUrl(parse())).to.equal(undefined);
  });
  it('refuses half a Crane shape, or a URL mixed with the service flags, as a usage error', () => {
    expect(() => remoteAdapterUrl(parse('--remote-adapter=true', '--remote-adapter-service-name=pa'))).to.throw(UsageError, /needs --remote-adapter-service-namespace and --remote-adapter-service-name/);
    expect(() => remoteAdapterUrl(parse('--remote-adapter=https://x.example:443', '--remote-adapter-service-namespace=ns'))).to.throw(UsageError, /either the URL or --remote-adapter=true/);
    expect(() => parse('--remote-adapter-service-port=0')).to.throw(UsageError);
  });
  it('--cron-semantics is v0.7 by default and takes head; --prediction-fallback takes unavailable and its old name error', () => {
    expect(parse()['cron-semantics']).to.equal('v0.7');
    expect(parse('--cron-semantics=head')['cron-semantics']).to.equal('head');
    expect(() => parse('--cron-semantics=v0.8')).to.throw(UsageError, /expected one of v0\.7, head/);
    expect(parse('--prediction-fallback=unavailable')['prediction-fallback']).to.equal('unavailable');
    expect(parse('--prediction-fallback=error')['prediction-fallback']).to.equal('error');
  });
});
