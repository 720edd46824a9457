// The Deployment and the remote-adapter component pass flags that server-side dry run cannot check:
// parse them with serve's own flag specs so a renamed or removed flag fails here, not in a cluster.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { parseFlags } from '../../../src/config/flags.ts';
import { serveCommand } from '../../../src/cli/serve-command.ts';

const root = new URL('../../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');

describe('manifests pass only flags that serve accepts', () => {
  it('manifests/deployment.yaml args parse with serve flags', () => {
    const docs = parseAllDocuments(read('manifests/deployment.yaml')).map((d) => d.toJS());
    const dep = docs.find((d) => d?.kind === 'Deployment');
    const args: string[] = dep.spec.template.spec.containers[0].args;
    expect(args.length).to.be.greaterThan(3);
    const f = parseFlags(serveCommand.flags, args);
    expect(f['secure-port']).to.equal(6443);
    expect(f['adapter-service-name']).to.equal('ehpa-adapter');
  });
  it('the remote-adapter component adds a --remote-adapter URL that parses', () => {
    const k = parseAllDocuments(read('manifests/components/remote-adapter/kustomization.yaml'))[0]!.toJS();
    const ops = parseAllDocuments(k.patches[0].patch)[0]!.toJS() as { value: string }[];
    const args = ops.map((o) => o.value);
    const f = parseFlags(serveCommand.flags, args);
    expect(f['remote-adapter']).to.match(/^https:\/\//);
  });
});
