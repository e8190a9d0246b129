# Pacer's controller image. No build step: Node 24 runs the TypeScript sources directly.
#   docker build -t pacer:0.1.0 .
# Where no Docker daemon is at hand, `make image` lays out an equivalent image (same user, entrypoint
# and ports; node and its libraries copied from the build machine instead of node:24-slim) as an OCI
# layout and a `docker load` tarball: scripts/image.ts, docs/install.md#the-image.
FROM node:24-slim

ENV NODE_ENV=production
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
