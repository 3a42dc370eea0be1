# syntax=docker/dockerfile:1
#
# Sigil image: one image for both processes.
#   API:    npm run api      (node api/main.ts, the default command)
#   Worker: npm run worker   (node temporal/worker/main.ts)
#
# Sigil runs its TypeScript sources directly with Node 24's type stripping; the one build step is the web app
# (web/ → web/build, in its own stage with the devDependencies). The image holds the sources, the built web
# app and the production dependencies only. docker-compose.yml builds it; see docs/deployment.md.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------------------
# Production dependencies, installed exactly as package-lock.json pins them.
# ---------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
# Install scripts run (npm 11.16+ limits them to package.json's allowScripts). The `node` package's install
# script fetches the Node 24 binary that every npm script runs as node_modules/.bin/node, so this step needs
# the npm registry, as any `npm ci` does.
RUN npm ci --omit=dev \
    && npm cache clean --force

# ---------------------------------------------------------------------------------------------------------
# The server's sources, as the runtime image runs them (the web build reads them too): listed once here.
# ---------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS sources
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY domain ./domain
COPY config ./config
COPY db ./db
COPY workflows ./workflows
COPY activities ./activities
COPY pdf ./pdf
COPY notifications ./notifications
COPY temporal ./temporal
COPY services ./services
COPY storage ./storage
COPY api ./api
COPY scripts ./scripts

# ---------------------------------------------------------------------------------------------------------
# The web app, built with Vite and SvelteKit (devDependencies); only web/build reaches the runtime image.
# ---------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS web
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
RUN npm ci
# The pages import domain/; the build reads each application route from the server's procedures
# (scripts/vite-app-routes.ts loads api/trpc/router.ts, and with it the server's modules).
COPY --from=sources /app ./
COPY web ./web
RUN npm run build:web

# ---------------------------------------------------------------------------------------------------------
# Runtime image.
# ---------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

# CA certificates for TLS connections made outside Node's own certificate store (the Temporal client's
# native core), e.g. to a managed Temporal or PostgreSQL service.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    SIGIL_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/sigil \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false

WORKDIR /app

# Everything under /app belongs to root and is read-only for the process; only DATA_DIR is writable.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=sources /app ./
COPY --from=web /app/web/build ./web/build

# DATA_DIR is created here, owned by the unprivileged `node` user (uid 1000) of the base image, so a fresh
# named volume mounted on it inherits that owner.
RUN mkdir -p /var/lib/sigil && chown node:node /var/lib/sigil

USER node

EXPOSE 3000

# No HEALTHCHECK here: the worker shares this image and serves no HTTP. docker-compose.yml checks the API
# with GET /api/health.
CMD ["npm", "run", "api"]
