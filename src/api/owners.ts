// Owner references: the one finder of an object's controller (apimachinery's GetControllerOf), for
// every layer that reads them (the engine, the controller, the plugin, the simulated cluster).

/** The ownerReference with controller: true, if any (an object has at most one). */
export function controllerOf<R extends { controller?: boolean }>(obj: {
  metadata: { ownerReferences?: readonly R[] };
}): R | undefined {
  const refs = obj.metadata.ownerReferences;
  if (!refs) return undefined;
  for (const r of refs) if (r.controller === true) return r;
  return undefined;
}
