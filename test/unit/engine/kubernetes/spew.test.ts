// go-spew's `%#v` of a pod template, piece by piece. The expected texts are the pieces
// `go run ./cmd/podtemplate-hash -dump` (hack/gotypes) prints for the same JSON.

import { expect } from 'chai';
import { TemplateValueError, spewPodTemplate } from '../../../../src/engine/kubernetes/spew.ts';

const container = (extra: object) => ({ spec: { containers: [{ name: 'c', image: 'i', ...extra }] } });

describe('engine/spew: a pod template as go-spew prints it', () => {
  it('prints every field of the Go struct in declaration order, each with its type', () => {
    const text = spewPodTemplate({});
    expect(text.startsWith('(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) ')).to
      .be.true;
    expect(text).to.include(
      'CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}',
    );
    expect(text).to.include('Spec:(v1.PodSpec){Volumes:([]v1.Volume)<nil> InitContainers:([]v1.Container)<nil> ');
  });

  const rows: Array<[string, object, string]> = [
    [
      'a list element has no type, its fields do',
      container({}),
      'Containers:([]v1.Container)[{Name:(string)c Image:(string)i ',
    ],
    ['an empty list is nil, as protobuf decodes it', container({ args: [] }), 'Args:([]string)<nil>'],
    ['a list of strings', container({ args: ['a', 'b c'] }), 'Args:([]string)[a b c]'],
    [
      'a map sorted by key, its values without type',
      { metadata: { labels: { b: '2', a: '1', B: '0' } } },
      'Labels:(map[string]string)map[B:0 a:1 b:2]',
    ],
    ['an empty map is nil', { metadata: { annotations: {} } }, 'Annotations:(map[string]string)<nil>'],
    [
      'a pointer that is set',
      { spec: { terminationGracePeriodSeconds: 30 } },
      'TerminationGracePeriodSeconds:(*int64)30',
    ],
    ['a pointer to false', { spec: { hostUsers: false } }, 'HostUsers:(*bool)false'],
    [
      'a pointer to an empty struct',
      { spec: { securityContext: {} } },
      'SecurityContext:(*v1.PodSecurityContext){SELinuxOptions:(*v1.SELinuxOptions)<nil> ',
    ],
    [
      'an embedded struct, inlined in JSON, printed under its type name',
      { spec: { volumes: [{ name: 'v', emptyDir: {} }] } },
      '[{Name:(string)v VolumeSource:(v1.VolumeSource){HostPath:(*v1.HostPathVolumeSource)<nil> EmptyDir:(*v1.EmptyDirVolumeSource){Medium:(v1.StorageMedium) SizeLimit:(*resource.Quantity)<nil>} ',
    ],
    [
      'an int-or-string port given as a number',
      container({ readinessProbe: { tcpSocket: { port: 80 } } }),
      'TCPSocket:(*v1.TCPSocketAction){Port:(intstr.IntOrString){Type:(intstr.Type)0 IntVal:(int32)80 StrVal:(string)} Host:(string)}',
    ],
    [
      'an int-or-string port given as a name',
      container({ readinessProbe: { tcpSocket: { port: 'http' } } }),
      'Port:(intstr.IntOrString){Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string)http}',
    ],
    [
      'a quantity, a map value: its Go fields, the quantity itself without type',
      container({ resources: { limits: { cpu: '0.5' } } }),
      'Limits:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)500 scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)500m Format:(resource.Format)DecimalSI}]',
    ],
    [
      'a quantity beyond an int64 as a big decimal',
      container({ resources: { limits: { memory: '1Pi' } } }),
      'd:(resource.infDecAmount){Dec:(*inf.Dec){unscaled:(big.Int){neg:(bool)false abs:(big.nat)[2882303761517117440 61035]} scale:(inf.Scale)9}} s:(string) Format:(resource.Format)BinarySI}',
    ],
    ['strings as they are, not quoted', container({ workingDir: 'a b:c]' }), 'WorkingDir:(string)a b:c] '],
  ];
  for (const [what, template, piece] of rows) it(what, () => expect(spewPodTemplate(template)).to.include(piece));

  it('leaves out JSON fields that the Go struct does not have', () =>
    expect(spewPodTemplate(container({ notAField: 1 }))).to.equal(spewPodTemplate(container({}))));

  const bad: Array<[string, object, string]> = [
    [
      'a quantity that is not one',
      container({ resources: { limits: { cpu: 'lots' } } }),
      'template.spec.containers[0].resources.limits[cpu]: quantities must match the regular expression',
    ],
    [
      'a string where a number goes',
      { spec: { terminationGracePeriodSeconds: '30' } },
      'template.spec.terminationGracePeriodSeconds: want an integer (Go int64), got "30"',
    ],
    [
      'a number where a string goes',
      container({ image: 3 }),
      'template.spec.containers[0].image: want a string (Go string), got 3',
    ],
    [
      'an object where a list goes',
      container({ args: { a: 1 } }),
      'template.spec.containers[0].args: want a list (Go []string), got {"a":1}',
    ],
    [
      'a fraction for a port, inside an inlined struct (the probe handler)',
      container({ readinessProbe: { tcpSocket: { port: 1.5 } } }),
      'template.spec.containers[0].readinessProbe.tcpSocket.port: want an integer or a string, got 1.5',
    ],
    [
      'a number for a volume source, inlined in the volume',
      { spec: { volumes: [{ name: 'v', emptyDir: 1 }] } },
      'template.spec.volumes[0].emptyDir: want an object (Go v1.EmptyDirVolumeSource), got 1',
    ],
  ];
  for (const [what, template, message] of bad)
    it(`refuses ${what}, naming the field and the value`, () =>
      expect(() => spewPodTemplate(template)).to.throw(TemplateValueError, message));
});
