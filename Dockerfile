# Pacer's controller image. No build step: Node 24 runs the TypeScript sources directly.
#   docker build -t pacer:0.1.0 .
# Where no Docker daemon is at hand, `make image` lays out an equivalent image (same user, entrypoint
# and ports; node and its libraries copied from the build machine instead of node:24-slim) as an OCI
# layout and a `docker load` tarball: scripts/image.ts, docs/install.md#the-image.
FROM node:24-slim

ENV NODE_ENV=production
# V8's young generation capped at 8 MiB a semi-space, what Node itself gives a container of 1-2 GiB,
# whatever the container's limit (with none, the controller's grew to 128 MiB committed):
# src/cli/nodeoptions.ts, docs/install.md#memory. Set NODE_OPTIONS in the Deployment's env to change it.
ENV NODE_OPTIONS=--max-semi-space-size=8
WORKDIR /app

# Production dependencies only, from the lockfile; the layer is reused until they change.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# Owned by root and so read-only to the process; the CRDs ship for `kubectl apply -f crds/`.
COPY bin/ bin/
COPY src/ src/
COPY crds/ crds/

# The image's unprivileged user (uid 1000).
USER node

EXPOSE 8443 8081 8082
ENTRYPOINT ["node", "bin/pacer.js"]
CMD ["controller"]
