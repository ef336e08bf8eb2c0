# syntax=docker/dockerfile:1
# One image per Postern service: `docker build --build-arg SERVICE=intake .`
# (docker-compose.yml builds each). SERVICE is one of credential, intake,
# dispatcher, delivery, projector.

FROM node:20-bookworm-slim AS build
# better-sqlite3 is compiled from source during npm ci.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ARG SERVICE=projector
ENV NODE_ENV=production \
    SERVICE=${SERVICE} \
    POSTERN_HOME=/var/lib/postern
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /var/lib/postern && chown node:node /var/lib/postern
USER node
VOLUME ["/var/lib/postern"]
# exec: the service is PID 1's only child, so SIGTERM from `docker stop` reaches it.
CMD ["sh", "-c", "exec node apps/${SERVICE}/dist/main.js"]
