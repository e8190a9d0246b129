// A NodeRoll's spec: defaults, and every bad input refused with a field path (the list: a
// selector that would take every node, nodes at a time of 0, an unknown mode, a timeout that is no
// duration), nothing disrupted while there is one.

import { expect } from 'chai';
import { formatFieldError } from '../../../src/api/validation.ts';
import { nodeRollDefaults, parseNodeGroup, validateNodeRoll } from '../../../src/api/noderoll.ts';
import type { NodeRollSpec } from '../../../src/api/noderoll.ts';

const base: NodeRollSpec = {
  nodeSelector: { matchLabels: { 'pacer.dev/node-group': 'workers' } },
  nodeGroup: 'workers',
  desiredNodes: 6,
};
const errors = (spec: NodeRollSpec) => validateNodeRoll({ metadata: { name: 'upgrade' }, spec }).map(formatFieldError);

describe('api: the NodeRoll spec', () => {
  it('defaults: Replace, one node at a time, 10m for every wait, not paused', () => {
    expect(nodeRollDefaults(base)).to.deep.include({
      mode: 'Replace',
      nodesAtATime: 1,
      paused: false,
      timeouts: { scaleUp: '10m', drain: '10m', deregister: '10m', healthy: '10m' },
    });
    expect(nodeRollDefaults({ ...base, timeouts: { drain: '30m' } }).timeouts.drain).to.equal('30m');
  });

  it('a complete spec is valid; Drain needs no desired count, and no group (it drains in place)', () => {
    expect(errors(base)).to.deep.equal([]);
    expect(errors({ ...base, desiredNodes: undefined, mode: 'Drain' })).to.deep.equal([]);
    expect(errors({ ...base, desiredNodes: undefined, nodeGroup: undefined, mode: 'Drain' })).to.deep.equal([]);
  });

  const rows: Array<[string, NodeRollSpec, string]> = [
    [
      'no selector',
      { ...base, nodeSelector: undefined },
      'spec.nodeSelector: Required value: a non-empty selector is required: an empty one would select every node',
    ],
    [
      'an empty selector',
      { ...base, nodeSelector: {} },
      'spec.nodeSelector: Required value: a non-empty selector is required: an empty one would select every node',
    ],
    [
      'a selector that is not one',
      { ...base, nodeSelector: { matchExpressions: [{ key: 'zone', operator: 'In' }] } },
      "spec.nodeSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      'no node group',
      { ...base, nodeGroup: undefined },
      'spec.nodeGroup: Required value: the node group to scale and to terminate nodes through (only a Drain roll goes without one, in place)',
    ],
    [
      'Replace without a desired count',
      { ...base, desiredNodes: undefined },
      'spec.desiredNodes: Required value: Replace needs the number of new nodes',
    ],
    [
      'a desired count of 0',
      { ...base, desiredNodes: 0 },
      'spec.desiredNodes: Invalid value: 0: must be greater than or equal to 1',
    ],
    [
      'nodes at a time of 0',
      { ...base, nodesAtATime: 0 },
      'spec.nodesAtATime: Invalid value: 0: must be greater than or equal to 1',
    ],
    [
      'an unknown mode',
      { ...base, mode: 'Recycle' as never },
      'spec.mode: Unsupported value: "Recycle": supported values: "Replace", "Drain"',
    ],
    [
      'a timeout that is no duration',
      { ...base, timeouts: { drain: '10' } },
      'spec.timeouts.drain: Invalid value: "10": time: missing unit in duration "10"',
    ],
    [
      'a timeout of zero',
      { ...base, timeouts: { healthy: '0s' } },
      'spec.timeouts.healthy: Invalid value: "0s": must be greater than 0',
    ],
    [
      'a Cluster API group of an unknown kind',
      { ...base, nodeGroup: 'MachinePool/capi/workers' },
      'spec.nodeGroup: Invalid value: "MachinePool/capi/workers": unknown kind "MachinePool": a Cluster API node group is KIND/NAMESPACE/NAME, KIND one of MachineDeployment, MachineSet (e.g. MachineDeployment/capi/workers)',
    ],
    [
      'a Cluster API group without its namespace',
      { ...base, nodeGroup: 'MachineDeployment/workers' },
      'spec.nodeGroup: Invalid value: "MachineDeployment/workers": a Cluster API node group is KIND/NAMESPACE/NAME, KIND one of MachineDeployment, MachineSet (e.g. MachineDeployment/capi/workers)',
    ],
    [
      'a Cluster API group whose namespace is no namespace name',
      { ...base, nodeGroup: 'MachineSet/Capi/workers-1' },
      "spec.nodeGroup: Invalid value: \"MachineSet/Capi/workers-1\": namespace \"Capi\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
    [
      'a Cluster API group with an empty name',
      { ...base, nodeGroup: 'MachineDeployment/capi/' },
      "spec.nodeGroup: Invalid value: \"MachineDeployment/capi/\": name \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
  ];
  for (const [what, spec, message] of rows) {
    it(`refuses ${what}: ${message}`, () => expect(errors(spec)).to.include(message));
  }
});

describe('api: spec.nodeGroup names the simulated NodeGroup or a Cluster API object', () => {
  const rows: Array<[string, ReturnType<typeof parseNodeGroup>]> = [
    ['workers', { kind: 'NodeGroup', name: 'workers' }],
    ['MachineDeployment/capi/workers', { kind: 'MachineDeployment', namespace: 'capi', name: 'workers' }],
    ['MachineSet/default/workers-7d9f', { kind: 'MachineSet', namespace: 'default', name: 'workers-7d9f' }],
  ];
  for (const [value, want] of rows)
    it(`${value} → ${JSON.stringify(want)}`, () => expect(parseNodeGroup(value)).to.deep.equal(want));
  it('a Cluster API group is valid in a spec, as a bare name is', () => {
    expect(errors({ ...base, nodeGroup: 'MachineDeployment/capi/workers' })).to.deep.equal([]);
  });
});
