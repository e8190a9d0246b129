// The query parameters of list and watch requests, read the way the real API server reads them
// (k8s.io/apimachinery: pkg/runtime/conversion.go for booleans, pkg/apis/meta/internalversion
// defaults.go and validation/validation.go for the watch-list options).

import { invalidError } from './store.ts';
import type { StatusCause } from './types.ts';

/**
 * A boolean query parameter as the API server decodes it: absent is false, `0` and `false` (in any
 * case) are false, and every other value, the empty string of a bare `?watch` included, is true.
 * So client-go's `watch=true`, the Python client's `watch=True` and curl's `watch=1` all watch.
 */
export function queryBool(v: string | null): boolean {
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** The list and watch options that change what is served; selectors and paging are read apart. */
export interface ListOptions {
  watch: boolean;
  resourceVersion: string;
  /**
   * For a watch: whether it starts with a synthetic ADDED event for every object, followed by a
   * bookmark marked `k8s.io/initial-events-end` when bookmarks are allowed. Undefined for a list.
   */
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
}

const NOT_OLDER_THAN = 'NotOlderThan';
const EXACT = 'Exact';

/**
 * Reads and checks the options. A watch without `sendInitialEvents` and `resourceVersionMatch` from
 * resourceVersion "" or "0" gets initial events, as with the WatchList feature on (the default since
 * Kubernetes 1.34): the legacy watch and the watch-list differ only in that closing bookmark.
 * Options that do not fit together are a 422 on `ListOptions.meta.k8s.io`, with upstream's messages.
 */
export function readListOptions(q: URLSearchParams): ListOptions {
  const watch = queryBool(q.get('watch'));
  const resourceVersion = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const hasContinue = (q.get('continue') ?? '') !== '';
  const sendParam = q.has('sendInitialEvents') ? queryBool(q.get('sendInitialEvents')) : undefined;
  const causes: StatusCause[] = [];
  const forbidden = (field: string, detail: string) =>
    causes.push({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
  const unsupported = (supported: string[]) =>
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'resourceVersionMatch',
      message: `Unsupported value: "${match}": supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
    });
  if (watch) {
    if (sendParam !== undefined && match !== NOT_OLDER_THAN) {
      forbidden('resourceVersionMatch', `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`);
    }
    if (match !== '') {
      if (sendParam === undefined)
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        );
      if (match !== NOT_OLDER_THAN) unsupported([NOT_OLDER_THAN]);
      if (hasContinue) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (match !== '') {
      if (resourceVersion === '')
        forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (hasContinue) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (match !== EXACT && match !== NOT_OLDER_THAN) unsupported([EXACT, NOT_OLDER_THAN, '']);
      if (match === EXACT && resourceVersion === '0')
        forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (sendParam !== undefined) forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (causes.length > 0) throw invalidError({ kind: 'ListOptions', group: 'meta.k8s.io' }, '', causes);
  const legacy = resourceVersion === '' || resourceVersion === '0';
  return {
    watch,
    resourceVersion,
    ...(watch ? { sendInitialEvents: sendParam ?? (match === '' && legacy) } : {}),
    allowWatchBookmarks: queryBool(q.get('allowWatchBookmarks')),
  };
}
