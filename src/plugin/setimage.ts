// `kubectl pacer set image NAME CONTAINER=IMAGE ...`: `kubectl set image` for Pacer's Deployment
// (kubectl's own only knows built-in kinds). One JSON patch: for every container changed, a test of
// its name at its index (so a reordered list fails rather than changing the wrong container) and a
// replace of its image. `*=IMAGE` sets every container.

import { HttpMethod, resourcePath } from '../kube/client.ts';
import type { Deployment } from '../api/types.ts';
import { PluginError } from './errors.ts';
import type { Session } from './options.ts';
import type { JsonPatchOp } from './undo.ts';
import { kindOf } from './target.ts';

/** CONTAINER=IMAGE pairs, in order; kubectl's error for anything else. */
export function parseImageArgs(args: readonly string[]): Array<{ container: string; image: string }> {
  if (args.length === 0) throw new PluginError('at least one image update is required');
  return args.map((a) => {
    const i = a.indexOf('=');
    if (i <= 0 || i === a.length - 1) throw new PluginError(`invalid image update "${a}": expected CONTAINER=IMAGE`);
    return { container: a.slice(0, i), image: a.slice(i + 1) };
  });
}

/** The JSON patch setting the images (empty when nothing changes); throws for an unknown container. Pure. */
export function imagePatch(d: Deployment, updates: ReadonlyArray<{ container: string; image: string }>): JsonPatchOp[] {
  const spec = (d.spec.template?.spec ?? {}) as {
    containers?: Array<{ name?: string; image?: string }>;
    initContainers?: Array<{ name?: string; image?: string }>;
  };
  const ops: JsonPatchOp[] = [];
  for (const u of updates) {
    let found = false;
    for (const list of ['initContainers', 'containers'] as const) {
      (spec[list] ?? []).forEach((c, i) => {
        if (u.container !== '*' && c.name !== u.container) return;
        found = true;
        if (c.image === u.image) return;
        const base = `/spec/template/spec/${list}/${i}`;
        ops.push(
          { op: 'test', path: `${base}/name`, value: c.name },
          { op: 'replace', path: `${base}/image`, value: u.image },
        );
      });
    }
    if (!found) throw new PluginError(`unable to find container named "${u.container}"`);
  }
  return ops;
}

export async function runSetImage(s: Session, name: string, args: readonly string[]): Promise<number> {
  const updates = parseImageArgs(args);
  const d = await s.client.getDeployment(s.namespace, name);
  const patch = imagePatch(d, updates);
  const k = kindOf(d);
  if (patch.length > 0) {
    await s.client.request<Deployment>(HttpMethod.PATCH, resourcePath(k.type, s.namespace, name), {
      body: patch,
      contentType: 'application/json-patch+json',
      what: `patch ${k.resource} ${name}`,
    });
  }
  s.io.stdout.write(`${k.prefix}${name} image updated\n`);
  return 0;
}
