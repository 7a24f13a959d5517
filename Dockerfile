# Multi-stage build: a static binary (the embedded store is pure Go) on a minimal base.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context has no .git: pass the commit for `consentforms version`
# (docker build --build-arg COMMIT=$(git rev-parse HEAD) .).
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.buildCommit=${COMMIT}" -o /out/consentforms ./cmd/consentforms

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/consentforms /consentforms
ENV CONSENTFORMS_ADDR=:8080 CONSENTFORMS_DATA_DIR=/data
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/consentforms"]
CMD ["serve"]
