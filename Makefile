# The two commands of the README: `make run` and `make test`. Both install what they need first.
# `make` alone installs and builds the dashboard's page and the plugin's bundle.
.PHONY: build run test typecheck lint fmt unit bench chaos install kubectl helm release image clean
.DEFAULT_GOAL := build

STAMP := node_modules/.pacer-installed

$(STAMP): package.json package-lock.json
	scripts/npm-ci.sh
	@touch $@

install: $(STAMP)

## The dashboard's page (web/) type-checked and built into dist/dashboard/ (docs/dashboard.md), and
## the kubectl plugin bundled into dist/plugin/ for a quick start (docs/plugin.md, "Start-up time").
build: $(STAMP)
	npm run --silent build:dashboard
	npm run --silent build:plugin

## Run Pacer: on the embedded simulated cluster, or against $$KUBECONFIG when it is set.
run: build
	npm start --silent

## The whole test suite: type check, unit, integration and end-to-end tests.
test: $(STAMP)
	@scripts/ensure-tools.sh
	npm test

## kubectl of the release the tests use, built from hack/kube (cached); prints its directory.
kubectl:
	@hack/kube/build.sh kubectl

## Helm of the release the chart's tests use, built from hack/helm (cached); prints its directory.
helm:
	@hack/helm/build.sh

## The plugin's release archives, one per platform, SHA256SUMS and the krew manifest made from them,
## in release/plugin/ (PACER_RELEASE_URL: where they will be published; docs/install.md).
release: build
	node_modules/.bin/node scripts/release.ts

## The controller's image without a Docker daemon: an OCI layout and a `docker load` tarball in
## release/image/ (docs/install.md). With a daemon: docker build -t pacer:0.1.0 .
image: build
	@hack/image/build.sh >/dev/null
	node_modules/.bin/node scripts/image.ts

typecheck: $(STAMP)
	npm run --silent typecheck

## The layering rules (.dependency-cruiser.mjs, docs/layering.md) and Biome's format check and
## lint (biome.json, docs/style.md); `make test` runs them too.
lint: $(STAMP)
	npm run --silent lint:deps
	npm run --silent lint:style

## Formats every file as Biome would have it (what `make lint` checks).
fmt: $(STAMP)
	npm run --silent format

unit: $(STAMP)
	npm run --silent test:unit

bench: $(STAMP)
	npm run --silent bench

## The chaos run at its big size (200 Deployments, 50 controller kills, 10% API errors; about 10 min).
chaos: $(STAMP)
	npm run --silent chaos

clean:
	rm -rf node_modules dist release .cache/dashboard-build
