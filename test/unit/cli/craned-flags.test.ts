// craned's flags on `serve` (src/cli/craned-flags.ts): every row of the table with what it becomes, and
// craned's documented Deployment arguments starting serve.
import { expect } from 'chai';
import { CRANED_FLAGS, translateCranedArgs } from '../../../src/cli/craned-flags.ts';
import { serveCommand } from '../../../src/cli/serve-command.ts';
import { parseFlags, UsageError } from '../../../src/config/flags.ts';
import { runCli } from '../../../src/cli/run-cli.ts';
import { captureIO } from '../../helpers/capture-io.ts';

const translate = (...argv: string[]) => translateCranedArgs(argv, serveCommand.flags);
/** The parsed serve flags for craned's arguments. */
const serveFlags = (...argv: string[]) => parseFlags(serveCommand.flags, translate(...argv).argv);

type Expect = { args: string[]; becomes: string[] } | { args: string[]; ignored: true } | { args: string[]; refused: RegExp; butEmpty?: string[] };

// One row per craned flag: a value craned's Deployment would carry, and what serve makes of it.
const ROWS: Record<string, Expect> = {
  'prometheus-address': { args: ['--prometheus-address=http://prometheus-server.crane-system.svc.cluster.local:8080'], becomes: ['--prometheus-url=http://prometheus-server.crane-system.svc.cluster.local:8080'] },
  'prometheus-auth-username': { args: ['--prometheus-auth-username', 'crane'], becomes: ['--prometheus-username=crane'] },
  'prometheus-auth-password': { args: ['--prometheus-auth-password=s3cret'], refused: /--prometheus-password-file/, butEmpty: ['--prometheus-auth-password='] },
  'prometheus-auth-bearertoken': { args: ['--prometheus-auth-bearertoken=tok'], refused: /--prometheus-token-file/, butEmpty: ['--prometheus-auth-bearertoken='] },
  'prometheus-query-concurrency': { args: ['--prometheus-query-concurrency=10'], becomes: ['--prometheus-max-concurrency=10'] },
  'prometheus-maxpoints': { args: ['--prometheus-maxpoints=11000'], becomes: ['--prometheus-max-points=11000'] },
  'prometheus-keepalive': { args: ['--prometheus-keepalive=60s'], ignored: true },
  'prometheus-bratelimit': { args: ['--prometheus-bratelimit'], ignored: true },
  'prometheus-thanos-partial': { args: ['--prometheus-thanos-partial=true'], ignored: true },
  'prometheus-thanos-dedup': { args: ['--prometheus-thanos-dedup'], ignored: true },
  'prometheus-federated-cluster-scope': { args: ['--prometheus-federated-cluster-scope'], refused: /cluster label/, butEmpty: ['--prometheus-federated-cluster-scope=false'] },
  'prometheus-cluster-label-name': { args: ['--prometheus-cluster-label-name=cluster'], refused: /cluster label/, butEmpty: ['--prometheus-cluster-label-name='] },
  'prometheus-cluster-label-value': { args: ['--prometheus-cluster-label-value=a'], refused: /cluster label/, butEmpty: ['--prometheus-cluster-label-value='] },
  'extension-labels': { args: ['--extension-labels=cluster=a'], refused: /metric-query annotation .* expressionQuery/, butEmpty: ['--extension-labels='] },
  'prometheus-adapter-extension-labels': { args: ['--prometheus-adapter-extension-labels=x=y'], refused: /prometheus-adapter rules are not read/, butEmpty: ['--prometheus-adapter-extension-labels='] },
  'prometheus-adapter-configmap-namespace': { args: ['--prometheus-adapter-configmap-namespace=monitoring'], refused: /metric-query\.autoscaling\.crane\.io/, butEmpty: ['--prometheus-adapter-configmap-namespace='] },
  'prometheus-adapter-configmap-name': { args: ['--prometheus-adapter-configmap-name=adapter-config'], refused: /prometheus-adapter rules/, butEmpty: ['--prometheus-adapter-configmap-name='] },
  'prometheus-adapter-configmap-key': { args: ['--prometheus-adapter-configmap-key=config.yaml'], refused: /prometheus-adapter rules/, butEmpty: ['--prometheus-adapter-configmap-key='] },
  'prometheus-adapter-config': { args: ['--prometheus-adapter-config=/etc/adapter/config.yaml'], refused: /prometheus-adapter rules/, butEmpty: ['--prometheus-adapter-config='] },
  datasource: { args: ['--datasource=grpc'], refused: /Prometheus only/, butEmpty: ['--datasource=prom'] },
  'seed-file': { args: ['--seed-file=/seed.csv'], ignored: true },
  'grpc-ds-address': { args: ['--grpc-ds-address=localhost:50051'], ignored: true },
  'grpc-ds-timeout': { args: ['--grpc-ds-timeout=1m'], ignored: true },
  'api-qps': { args: ['--api-qps=300'], becomes: ['--kube-api-qps=300'] },
  'api-burst': { args: ['--api-burst', '400'], becomes: ['--kube-api-burst=400'] },
  'metrics-bind-address': { args: ['--metrics-bind-address=:8080'], becomes: ['--metrics-bind-address=0.0.0.0', '--metrics-port=8080'] },
  'health-probe-bind-address': { args: ['--health-probe-bind-address=:8081'], ignored: true },
  'lease-duration': { args: ['--lease-duration=15s'], becomes: ['--leader-election-lease-duration=15s'] },
  'lease-renew-period': { args: ['--lease-renew-period=10s'], becomes: ['--leader-election-renew-deadline=10s'] },
  'lease-retry-period': { args: ['--lease-retry-period=2s'], becomes: ['--leader-election-retry-period=2s'] },
  'cache-unstructured': { args: ['--cache-unstructured'], ignored: true },
  'prediction-update-frequency-duration': { args: ['--prediction-update-frequency-duration=30s'], becomes: ['--prediction-update-frequency=30s'] },
  'time-series-prediction-max-concurrent-reconciles': { args: ['--time-series-prediction-max-concurrent-reconciles=10'], becomes: ['--tsp-workers=10'] },
  'feature-gates': { args: ['--feature-gates=Autoscaling=false'], refused: /--controllers=tsp/, butEmpty: ['--feature-gates=Analysis=true,TimeSeriesPrediction=true,Autoscaling=true'] },
  'webhook-enabled': { args: ['--webhook-enabled=false'], ignored: true },
  'recommendation-config-file': { args: ['--recommendation-config-file=/tmp/recommendation-config/config_set.yaml'], ignored: true },
  'recommendation-configuration-file': { args: ['--recommendation-configuration-file=/tmp/recommendation-config/config.yaml'], ignored: true },
  'qos-config-file': { args: ['--qos-config-file=/qos.yaml'], ignored: true },
  'oom-record-max-number': { args: ['--oom-record-max-number=10000'], ignored: true },
  'server-bind-address': { args: ['--server-bind-address=0.0.0.0'], ignored: true },
  'server-bind-port': { args: ['--server-bind-port=8082'], ignored: true },
  'server-enable-profiling': { args: ['--server-enable-profiling'], ignored: true },
  'server-enable-metrics': { args: ['--server-enable-metrics=true'], ignored: true },
  'server-mode': { args: ['--server-mode=release'], ignored: true },
  'server-enable-grafana': { args: ['--server-enable-grafana'], ignored: true },
  'server-grafana-config': { args: ['--server-grafana-config=/grafana.ini'], ignored: true },
  'server-store': { args: ['--server-store=secret'], ignored: true },
  v: { args: ['-v=4'], ignored: true },
  vmodule: { args: ['--vmodule=ehpa=4'], ignored: true },
  logtostderr: { args: ['--logtostderr'], ignored: true },
  alsologtostderr: { args: ['--alsologtostderr=true'], ignored: true },
  log_dir: { args: ['--log_dir=/var/log'], ignored: true },
  log_file: { args: ['--log_file=/var/log/craned.log'], ignored: true },
  log_file_max_size: { args: ['--log_file_max_size=1800'], ignored: true },
  stderrthreshold: { args: ['--stderrthreshold=2'], ignored: true },
  add_dir_header: { args: ['--add_dir_header'], ignored: true },
  skip_headers: { args: ['--skip_headers'], ignored: true },
  skip_log_headers: { args: ['--skip_log_headers'], ignored: true },
  one_output: { args: ['--one_output=true'], ignored: true },
  log_backtrace_at: { args: ['--log_backtrace_at=file.go:10'], ignored: true },
  msg: { args: ['--msg', 'Starting adapter...'], ignored: true },
};

describe('serve: craned flags', () => {
  it('the test table has a row for every craned flag, and none more', () => {
    expect(Object.keys(ROWS).sort()).to.deep.equal(Object.keys(CRANED_FLAGS).sort());
  });

  for (const [name, row] of Object.entries(ROWS)) {
    it(`--${name}: ${'becomes' in row ? `alias, ${row.becomes.join(' ')}` : 'ignored' in row ? 'ignored with a log line' : 'refused with a pointer when set'}`, () => {
      if ('becomes' in row) {
        const t = translate(...row.args);
        expect(t.argv).to.deep.equal(row.becomes);
        expect(t.notices).to.have.length(1);
        expect(t.notices[0]).to.include({ flag: `--${name}`, level: 'info' });
        parseFlags(serveCommand.flags, t.argv); // and serve accepts what it became
      } else if ('ignored' in row) {
        const t = translate(...row.args, '--log-level=debug');
        expect(t.argv).to.deep.equal(['--log-level=debug']); // the flag and its value gone, nothing else
        expect(t.notices).to.have.length(1);
        expect(t.notices[0]?.message).to.match(/^craned flag ignored: ./);
      } else {
        expect(() => translate(...row.args)).to.throw(UsageError, row.refused);
        expect(() => translate(...row.args)).to.throw(UsageError, new RegExp(`^craned's --${name} is not accepted: `));
        if (row.butEmpty) {
          const t = translate(...row.butEmpty);
          expect(t.argv).to.deep.equal([]);
          expect(t.notices).to.have.length(1);
        }
      }
    });
  }

  it('a refused secret never appears in the message', () => {
    for (const args of [['--prometheus-auth-password=hunter2-XYZ'], ['--prometheus-auth-bearertoken', 'hunter2-XYZ']]) {
      try {
        translate(...args);
        expect.fail('not refused');
      } catch (e) {
        expect((e as Error).message).not.to.contain('hunter2-XYZ');
      }
    }
  });

  it('aliases carry their values into serve flags', () => {
    const f = serveFlags('--prometheus-address', 'http://prom:9090', '--api-qps=50', '--api-burst=60', '--lease-duration=30s', '--lease-renew-period=20s', '--lease-retry-period=5s', '--time-series-prediction-max-concurrent-reconciles=3', '--prediction-update-frequency-duration=1m', '--prometheus-maxpoints=5000', '--prometheus-query-concurrency=4', '--prometheus-auth-username=crane');
    expect(f['prometheus-url']).to.equal('http://prom:9090');
    expect(f['kube-api-qps']).to.equal(50);
    expect(f['kube-api-burst']).to.equal(60);
    expect(f['leader-election-lease-duration']).to.equal(30_000);
    expect(f['leader-election-renew-deadline']).to.equal(20_000);
    expect(f['leader-election-retry-period']).to.equal(5_000);
    expect(f['tsp-workers']).to.equal(3);
    expect(f['prediction-update-frequency']).to.equal(60_000);
    expect(f['prometheus-max-points']).to.equal(5000);
    expect(f['prometheus-max-concurrency']).to.equal(4);
    expect(f['prometheus-username']).to.equal('crane');
  });

  it('flags craned shares with serve (same name, same meaning) pass through, values in the next argument included', () => {
    const argv = ['--leader-elect=false', '--prometheus-timeout', '3m0s', '--prometheus-insecure-skip-verify', '--model-update-interval=12h0m0s', '--secure-port', '6443'];
    expect(translate(...argv)).to.deep.equal({ argv, notices: [] });
    const f = serveFlags(...argv);
    expect(f['leader-elect']).to.equal(false);
    expect(f['prometheus-timeout']).to.equal(180_000);
    expect(f['model-update-interval']).to.equal(12 * 3_600_000);
  });

  it('--metrics-bind-address: host:port splits, [v6]:port too, an address alone passes, "0" is ignored', () => {
    expect(translate('--metrics-bind-address=127.0.0.1:9100').argv).to.deep.equal(['--metrics-bind-address=127.0.0.1', '--metrics-port=9100']);
    expect(translate('--metrics-bind-address', '[::1]:9100').argv).to.deep.equal(['--metrics-bind-address=::1', '--metrics-port=9100']);
    expect(translate('--metrics-bind-address=0.0.0.0')).to.deep.equal({ argv: ['--metrics-bind-address=0.0.0.0'], notices: [] });
    expect(translate('--metrics-bind-address=::')).to.deep.equal({ argv: ['--metrics-bind-address=::'], notices: [] });
    expect(translate('--metrics-bind-address=0').argv).to.deep.equal([]);
  });

  it('--feature-gates: every craned gate is known; ours may not be switched off; a typo is refused as craned would', () => {
    const t = translate('--feature-gates=Analysis=false, NodeResource=true,PodResource=1,ClusterNodePrediction=F,NodeResourceTopology=true,CraneCPUManager=true,DashboardControl=false,QOSInitializer=true,AllAlpha=false,TimeSeriesPrediction=TRUE');
    expect(t.argv).to.deep.equal([]);
    expect(t.notices[0]?.message).to.contain('Analysis, NodeResource, PodResource');
    expect(() => translate('--feature-gates=TimeSeriesPrediction=false')).to.throw(UsageError, /--controllers=ehpa/);
    expect(() => translate('--feature-gates=Autoscalling=true')).to.throw(UsageError, /unrecognized feature gate "Autoscalling"/);
    expect(() => translate('--feature-gates=Analysis')).to.throw(UsageError, /not Name=true or Name=false/);
  });

  it('--datasource: prom (also repeated or listed twice) is accepted; any other source is refused', () => {
    expect(translate('--datasource', 'prom', '--datasource=prom,prom').argv).to.deep.equal([]);
    expect(() => translate('--datasource=prom,metricserver')).to.throw(UsageError, /--datasource=metricserver/);
    expect(() => translate('--datasource=mock')).to.throw(UsageError, /Prometheus only/);
  });

  it('repeated --ehpa-propagation-* keep every value, as craned\'s string slices do', () => {
    const t = translate('--ehpa-propagation-labels=a', '--log-level=warn', '--ehpa-propagation-labels', 'b,c', '--ehpa-propagation-annotation-prefixes=x/');
    expect(t.argv).to.deep.equal(['--ehpa-propagation-labels=a,b,c', '--log-level=warn', '--ehpa-propagation-annotation-prefixes=x/']);
    expect(parseFlags(serveCommand.flags, t.argv)['ehpa-propagation-labels']).to.equal('a,b,c');
  });

  it('a flag neither ours nor craned\'s is an unknown flag pointing at the table; a missing value is named', () => {
    expect(() => translate('--prometheus-adress=http://x')).to.throw(UsageError, /^unknown flag --prometheus-adress \(.*docs\/crane-behaviour\.md §C\.8\)$/);
    expect(() => translate('--prometheus-address')).to.throw(UsageError, /flag --prometheus-address needs a value/);
  });

  it("craned's documented Deployment arguments parse as serve's flags (Helm chart defaults, and deploy/craned's)", () => {
    const helm = ['--recommendation-configuration-file=/tmp/recommendation-config/config.yaml', '--prometheus-address=http://prometheus-server.crane-system.svc.cluster.local:8080', '--feature-gates=Analysis=true,TimeSeriesPrediction=true,Autoscaling=true', '--v=2'];
    const f = serveFlags(...helm);
    expect(f['prometheus-url']).to.equal('http://prometheus-server.crane-system.svc.cluster.local:8080');
    expect(translate(...helm).notices.map((n) => n.flag)).to.deep.equal(['--recommendation-configuration-file', '--prometheus-address', '--feature-gates', '--v']);
    const manifest = ['--prometheus-address=PROMETHEUS_ADDRESS', '--feature-gates=Analysis=true,TimeSeriesPrediction=true,Autoscaling=true', '--recommendation-config-file=/tmp/recommendation-config/config_set.yaml', '-v=4'];
    expect(serveFlags(...manifest)['prometheus-url']).to.equal('PROMETHEUS_ADDRESS');
    // Crane's metric-adapter chart arguments, for a serve that replaces it too.
    expect(serveFlags('--secure-port=6443', '--alsologtostderr=true', '--v=2', '--api-qps=300', '--api-burst=400')['secure-port']).to.equal(6443);
  });

  it('serve started with them runs (no "unknown flag") and logs one line per craned flag; a refused one exits 2 in one line', async () => {
    const io = captureIO();
    const run = runCli(
      ['serve', '--prometheus-address=http://prometheus-server.crane-system.svc.cluster.local:8080', '--feature-gates=Analysis=true,TimeSeriesPrediction=true,Autoscaling=true', '--v=2', '--recommendation-configuration-file=/tmp/recommendation-config/config.yaml', '--adapter=false', '--crane-exporter=false', '--controllers=', '--metrics-port=0', '--metrics-bind-address=127.0.0.1'],
      io,
    );
    for (let i = 0; i < 200 && !io.err().includes('operations endpoint listening'); i++) await new Promise((r) => setTimeout(r, 10));
    io.stop();
    expect(await run).to.equal(0);
    const lines = io.err().trim().split('\n').map((l) => JSON.parse(l) as { cranedFlag?: string; msg: string });
    expect(lines.filter((l) => l.cranedFlag).map((l) => l.cranedFlag)).to.deep.equal(['--prometheus-address', '--feature-gates', '--v', '--recommendation-configuration-file']);
    expect(io.err()).not.to.contain('unknown flag');

    const refused = captureIO();
    expect(await runCli(['serve', '--prometheus-address=http://p:9090', '--prometheus-auth-password=pw', '--metrics-port=0'], refused)).to.equal(2);
    expect(refused.err().trim().split('\n')).to.have.length(1);
    expect(refused.err()).to.match(/^ehpa-adapter serve: craned's --prometheus-auth-password is not accepted: .*--prometheus-password-file/);
  });
});
