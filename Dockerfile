# syntax=docker/dockerfile:1
# Fetches from package registries only: the Dockerfile frontend and node:20-bookworm-slim from Docker Hub,
# npm packages from the npm registry by the lockfile, nothing else (test/unit/packaging/release.test.ts
# checks the base images, that no lockfile entry is a git or tarball URL, and that no instruction downloads
# anything itself: no ADD, no curl, wget or git).
#
# Build stage: install with the lockfile, compile TypeScript to dist/. It runs on the builder's own platform
# ($BUILDPLATFORM) even for the arm64 image, since compiled JavaScript is the same for every architecture:
# the release's multi-platform build then runs tsc natively instead of under QEMU, many times slower.
FROM --platform=$BUILDPLATFORM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies only, compiled code, non-root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
# Freed allocations of 128 KiB and more go back to the kernel (glibc's default threshold grows and lets the
# main arena fragment: manifests/deployment.yaml says what it costs).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist ./dist
# The node image's unprivileged user (uid 1000); the Deployment also sets runAsNonRoot.
USER 1000:1000
EXPOSE 6443 8080
ENTRYPOINT ["node", "/app/bin/ehpa-adapter.js"]
CMD ["serve"]
