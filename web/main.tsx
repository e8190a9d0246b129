// The dashboard's page: one stream of the server's views (connection.ts) into one model
// (state.ts), drawn by Preact as the home page or a Deployment's page, chosen by the URL's hash
// (#/ or #/deployments/NAMESPACE/NAME). Every name reaches the DOM through JSX text, which Preact
// escapes.

import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Stream } from './connection.ts';
import type { LinkState } from './connection.ts';
import { useOperations } from './actions.tsx';
import { needsSignIn, signIn, signOut } from './api.ts';
import { AnalysisRunPage, AnalysisRunsPage } from './analysis.tsx';
import { CanariesPage } from './canaries.tsx';
import { DeploymentPage } from './deployment.tsx';
import { Home } from './home.tsx';
import { MarathonPage } from './marathon.tsx';
import { NodeRollsPage } from './noderolls.tsx';
import { PlansPage } from './plans.tsx';
import { age, applyChanges, frozen, fromSnapshot, keyOf } from './state.ts';
import type { Filter, Model } from './state.ts';

type Route =
  | { page: 'home' }
  | { page: 'noderolls' }
  | { page: 'analysis' }
  | { page: 'marathon' }
  | { page: 'canaries' }
  | { page: 'deployment' | 'plans' | 'analysisOf' | 'analysisRun'; namespace: string; name: string };

function route(hash: string): Route {
  if (hash === '#/noderolls') return { page: 'noderolls' };
  if (hash === '#/analysis') return { page: 'analysis' };
  if (hash === '#/marathon') return { page: 'marathon' };
  if (hash === '#/canaries') return { page: 'canaries' };
  const m = /^#\/(deployments|plans|analysis|analysisruns)\/([^/]+)\/([^/]+)$/.exec(hash);
  if (m) {
    try {
      return {
        page: ({ plans: 'plans', analysis: 'analysisOf', analysisruns: 'analysisRun' } as const)[m[1]] ?? 'deployment',
        namespace: decodeURIComponent(m[2]),
        name: decodeURIComponent(m[3]),
      };
    } catch {
      return { page: 'home' };
    }
  }
  return { page: 'home' };
}

const LINK_WORDS: Record<LinkState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'connection lost: reconnecting…',
  paused: 'paused while the tab is hidden',
};

/**
 * In the cluster, the sign-in: a token (`kubectl create token NAME`, or any the API server accepts)
 * pasted here is sent once to POST /api/v1/session, which answers with an HttpOnly session cookie;
 * the page never keeps the token.
 */
function SignIn({ done }: { done: () => void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  return (
    <main>
      <form
        class="sign-in"
        data-form="sign-in"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const r = await signIn(token);
          setBusy(false);
          if (r.ok) {
            setToken('');
            done();
          } else setError(`${r.status} ${r.message}`);
        }}
      >
        <h1>Sign in</h1>
        <p>
          This dashboard shows and does what Kubernetes RBAC lets you: sign in with a token the cluster's API server
          accepts (for a ServiceAccount: <code>kubectl create token NAME -n NAMESPACE</code>).
        </p>
        <label>
          Token{' '}
          <input
            type="password"
            name="token"
            autocomplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </label>{' '}
        <button type="submit" data-action="sign-in" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        {error ? (
          <div class="notice error" role="alert" data-signin-error="">
            {error}
          </div>
        ) : null}
      </form>
    </main>
  );
}

function App() {
  // In the cluster the page starts at the sign-in when it has no session; on this machine never.
  const [signedIn, setSignedIn] = useState<'unknown' | 'no' | 'yes'>('unknown');
  useEffect(() => {
    void needsSignIn().then((needed) => setSignedIn(needed ? 'no' : 'yes'));
  }, []);
  if (signedIn === 'unknown') return <p class="loading">Loading…</p>;
  if (signedIn === 'no') return <SignIn done={() => setSignedIn('yes')} />;
  return <Dashboard signOut={() => setSignedIn('no')} />;
}

function Dashboard({ signOut: signedOut }: { signOut: () => void }) {
  const [model, setModel] = useState<Model | undefined>(undefined);
  const [link, setLink] = useState<LinkState>('connecting');
  const [notice, setNotice] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [where, setWhere] = useState<Route>(route(location.hash));
  const [filter, setFilter] = useState<Filter>({ name: '', state: '' });
  const seen = useRef(new Set<string>());
  const freezeOps = useOperations();
  const stream = useRef<Stream | undefined>(undefined);

  useEffect(() => {
    const onHash = () => setWhere(route(location.hash));
    window.addEventListener('hashchange', onHash);
    const s = new Stream({
      snapshot(s, again) {
        setProblems([]);
        setModel(fromSnapshot(s));
        if (again)
          setNotice('Reconnected: the server could not replay what was missed, so everything was loaded again.');
      },
      changes(c) {
        setModel((m) => (m ? applyChanges(m, c) : m));
      },
      resumed(r) {
        setNotice(`Reconnected: resumed where the page left off (${r.changes} changes caught up).`);
      },
      waiting(w) {
        setProblems(w.problems);
      },
      link: setLink,
      access() {
        setNotice('Your rights in the cluster have changed: the page shows what they let you see now.');
      },
      // The session ended (or the token was revoked): back to the sign-in.
      closed() {
        void needsSignIn().then((needed) => {
          if (!needed) return;
          stream.current?.close();
          signedOut();
        });
      },
    });
    stream.current = s;
    s.open();
    return () => {
      window.removeEventListener('hashchange', onHash);
      s.close();
    };
  }, []);

  if (model) for (const d of model.deployments.values()) seen.current.add(keyOf(d));
  const scope = model
    ? model.config.namespace === null
      ? 'all namespaces'
      : `namespace ${model.config.namespace}`
    : '';
  const freeze = model ? frozen(model) : undefined;
  const canAct = model !== undefined && !model.config.readOnly;
  return (
    <>
      <header>
        <a class="brand" href="#/">
          Pacer
        </a>
        <nav>
          <a href="#/" class={where.page === 'home' || where.page === 'deployment' ? 'here' : ''}>
            Deployments
          </a>
          <a href="#/noderolls" class={where.page === 'noderolls' ? 'here' : ''} data-nav="noderolls">
            Node rolls
          </a>
          <a href="#/analysis" class={where.page.startsWith('analysis') ? 'here' : ''} data-nav="analysis">
            Analysis
          </a>
          <a href="#/marathon" class={where.page === 'marathon' ? 'here' : ''} data-nav="marathon">
            Marathon deployments
          </a>
          <a href="#/canaries" class={where.page === 'canaries' ? 'here' : ''} data-nav="canaries">
            Canaries
          </a>
        </nav>
        <span class="scope">{scope}</span>
        {canAct && !freeze ? (
          <button
            type="button"
            class="freeze-on"
            data-action="freeze-on"
            disabled={freezeOps.busy}
            onClick={() =>
              freezeOps.ask({
                op: { kind: 'freeze', action: 'on' },
                question:
                  'Freeze Pacer? No new rollout step, eviction or node termination anywhere in the cluster until the freeze is lifted.',
                yes: 'Freeze',
                input: 'Reason',
              })
            }
          >
            Freeze…
          </button>
        ) : null}
        {model?.config.readOnly ? <span class="badge readonly">read-only</span> : null}
        {model?.config.user ? (
          <span class="user">
            <span data-field="user">{model.config.user}</span>{' '}
            <button
              type="button"
              data-action="sign-out"
              onClick={async () => {
                await signOut();
                stream.current?.close();
                signedOut();
              }}
            >
              Sign out
            </button>
          </span>
        ) : null}
        <span class={`link link-${link}`} role="status" data-link={link}>
          {LINK_WORDS[link]}
        </span>
      </header>
      {freeze ? (
        <div class="notice frozen" role="alert" data-freeze="on">
          <strong>Pacer is frozen</strong> <span data-field="freeze-reason">({freeze.reason})</span>
          {freeze.since ? ` for ${age(freeze.since, Date.now())}` : ''}: nothing new is disrupted until the freeze is
          lifted.{' '}
          {canAct ? (
            <button
              type="button"
              data-action="freeze-off"
              disabled={freezeOps.busy}
              onClick={() =>
                freezeOps.ask({
                  op: { kind: 'freeze', action: 'off' },
                  question: `Lift the freeze (${freeze.reason})? Rollouts and node rolls go on.`,
                  yes: 'Lift the freeze',
                })
              }
            >
              Lift the freeze
            </button>
          ) : null}
        </div>
      ) : null}
      <div class="freeze-result">{freezeOps.view}</div>
      {notice ? (
        <div class="notice info" data-notice="reconnected">
          {notice}{' '}
          <button type="button" class="dismiss" onClick={() => setNotice('')}>
            dismiss
          </button>
        </div>
      ) : null}
      {!model ? (
        <main>
          <p class="loading">Loading…</p>
          {problems.length > 0 ? (
            <div class="notice error" role="alert" data-waiting="">
              The dashboard cannot read the cluster yet (it keeps trying):
              <ul>
                {problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </div>
          ) : null}
        </main>
      ) : where.page === 'home' ? (
        <Home model={model} filter={filter} setFilter={setFilter} />
      ) : where.page === 'noderolls' ? (
        <NodeRollsPage model={model} />
      ) : where.page === 'analysis' ? (
        <AnalysisRunsPage model={model} />
      ) : where.page === 'analysisOf' ? (
        <AnalysisRunsPage model={model} namespace={where.namespace} deployment={where.name} />
      ) : where.page === 'analysisRun' ? (
        <AnalysisRunPage model={model} namespace={where.namespace} name={where.name} />
      ) : where.page === 'marathon' ? (
        <MarathonPage model={model} />
      ) : where.page === 'canaries' ? (
        <CanariesPage model={model} />
      ) : where.page === 'plans' ? (
        <PlansPage
          key={`${where.namespace}/${where.name}`}
          model={model}
          namespace={where.namespace}
          name={where.name}
        />
      ) : (
        <DeploymentPage
          key={`${where.namespace}/${where.name}`}
          model={model}
          namespace={where.namespace}
          name={where.name}
          seen={seen.current.has(`${where.namespace}/${where.name}`)}
        />
      )}
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
