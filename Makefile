# One command per check; CI (.ci/run) runs `make test`.
.DEFAULT_GOAL := help
SHELL := /bin/bash
VENV := .venv/bin
HAS_CONSOLE := $(wildcard dashboards/package.json)

.PHONY: help install console up up-cluster check test test-unit lint typecheck config-doc clean-var

help:
	@echo "make install    bootstrap: system packages (root), .venv, Kafka jars (idempotent, quick when done)"
	@echo "make up         build the console if its sources changed, run the whole stack (fleet up); Ctrl-C stops it"
	@echo "make up-cluster the same as processes in docker/compose.yaml's topology: 3 Kafka brokers, gateways and APIs behind HAProxy, several workers"
	@echo "make console    build the console (dashboards/dist) if its sources changed"
	@echo "make test       install, console lint/typecheck/vitest/build, then every pytest suite (unit, integration, e2e)"
	@echo "make test-unit  unit tests only (no servers)"
	@echo "make lint       ruff, the import layering contracts (lint-imports), and eslint for the console"
	@echo "make typecheck  mypy (and tsc for the console)"
	@echo "make config-doc regenerate docs/configuration.md from fleet/settings.py"

install:
	@scripts/install.sh

console: install
	@scripts/build-console.sh

up: console
	$(VENV)/fleet up

up-cluster: console
	$(VENV)/fleet up --topology cluster

test: install
	@scripts/test.sh

test-unit: install
	$(VENV)/pytest tests/unit -q

lint: install
	$(VENV)/ruff check .
	$(VENV)/lint-imports --no-cache
ifneq ($(HAS_CONSOLE),)
	cd dashboards && npm run lint
endif

typecheck: install
	$(VENV)/mypy
ifneq ($(HAS_CONSOLE),)
	cd dashboards && npm run typecheck
endif

config-doc: install
	$(VENV)/fleet config-doc > docs/configuration.md

clean-var:
	@echo "stop 'fleet up' first; this deletes var/ (database, Kafka data, logs)"
	rm -rf var/
