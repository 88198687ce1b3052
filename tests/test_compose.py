"""docker-compose.yml and the Dockerfile, checked by structure (no Docker engine runs where tests run)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
APP_SERVICES = ("api", "api-lecture", "dashboard", "worker", "worker-fast")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    services = compose["services"]
    assert isinstance(services, dict)
    return services


def _command(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    return command if isinstance(command, list) else str(command).split()


def _flag(command: list[str], name: str) -> str:
    assert name in command, f"{name} missing from {command}"
    return command[command.index(name) + 1]


def test_services_present(services: dict[str, Any]) -> None:
    assert {"redis", "cache", "api", "dashboard", "worker"} <= set(services)


def test_redis_services_use_an_image_and_a_healthcheck(services: dict[str, Any]) -> None:
    for name in ("redis", "cache"):
        service = services[name]
        assert str(service["image"]).startswith("redis:"), name
        assert "redis-cli" in service["healthcheck"]["test"] and "ping" in service["healthcheck"]["test"], name


def test_queue_never_evicts_and_cache_is_lru_bounded(services: dict[str, Any]) -> None:
    queue = _command(services["redis"])
    assert _flag(queue, "--maxmemory-policy") == "noeviction"
    # accepted jobs survive a restart of the queue: an append-only file in a volume
    assert _flag(queue, "--appendonly") == "yes" and any(v.endswith(":/data") for v in services["redis"]["volumes"])
    cache = _command(services["cache"])
    assert _flag(cache, "--maxmemory-policy") == "allkeys-lru"
    assert re.fullmatch(r"\d+[kmg]b", _flag(cache, "--maxmemory")), "the LRU cache needs a memory bound"


def test_app_services_build_from_the_dockerfile(services: dict[str, Any]) -> None:
    for name in APP_SERVICES:
        build = services[name]["build"]
        context = build["context"] if isinstance(build, dict) else build
        dockerfile = build.get("dockerfile", "Dockerfile") if isinstance(build, dict) else "Dockerfile"
        assert (ROOT / context / dockerfile).resolve() == (ROOT / "Dockerfile").resolve(), name
        assert _command(services[name])[0] == "headdiv", name


def test_api_serves_on_8050_with_redis_and_a_health_probe(services: dict[str, Any]) -> None:
    api = services["api"]
    command = _command(api)
    assert command[:2] == ["headdiv", "serve"]
    assert _flag(command, "--host") == "0.0.0.0" and _flag(command, "--port") == "8050"
    assert "8050:8050" in [str(p) for p in api["ports"]]
    assert api["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert api["environment"]["CACHE_REDIS_URL"] == "redis://cache:6379/0"
    probe = " ".join(api["healthcheck"]["test"])
    assert "/api/v1/health" in probe and "8050" in probe
    assert api["depends_on"] == {
        "redis": {"condition": "service_healthy"},
        "cache": {"condition": "service_healthy"},
    }


def test_dashboard_talks_to_the_api(services: dict[str, Any]) -> None:
    dashboard = services["dashboard"]
    command = _command(dashboard)
    assert command[:2] == ["headdiv", "dashboard"]
    assert _flag(command, "--api-url") == "http://api:8050"
    assert _flag(command, "--port") == "8051"
    assert "8051:8051" in [str(p) for p in dashboard["ports"]]
    assert dashboard["depends_on"]["api"]["condition"] == "service_healthy"


@pytest.mark.parametrize("name, command", [("worker", []), ("worker-fast", ["--fast-lane"])])
def test_workers_reserve_one_gpu_and_use_the_queue(services: dict[str, Any], name: str, command: list[str]) -> None:
    worker = services[name]
    assert _command(worker) == ["headdiv", "worker", *command]
    assert worker["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert worker["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "ports" not in worker, "a worker takes jobs from Redis and serves nothing"
    deploy = worker["deploy"]
    assert deploy["replicas"] >= 1
    (device,) = deploy["resources"]["reservations"]["devices"]
    assert device["driver"] == "nvidia"
    assert "gpu" in device["capabilities"]
    assert device.get("count") == 1


def test_every_dependency_is_a_defined_service(services: dict[str, Any]) -> None:
    for name, service in services.items():
        for dependency, spec in (service.get("depends_on") or {}).items():
            assert dependency in services, f"{name} depends on unknown {dependency}"
            assert spec["condition"] == "service_healthy", f"{name} -> {dependency}"
            assert "healthcheck" in services[dependency], f"{dependency} has no healthcheck to wait for"


def test_dockerfile_installs_torch_before_the_project_and_drops_root() -> None:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    instructions = [line for line in lines if line and not line.startswith("#")]
    assert instructions[0].startswith("FROM python:3.11")
    torch_args = [line for line in instructions if line.startswith("ARG TORCH=")]
    assert torch_args == ["ARG TORCH=torch==2.13.0"]
    runs = [i for i, line in enumerate(instructions) if line.startswith("RUN pip install")]
    torch_at = next(i for i in runs if "TORCH" in instructions[i] or "torch" in instructions[i])
    project_at = next(i for i in runs if re.search(r"pip install (-e )?\.(\s|$|\[)", instructions[i]))
    assert torch_at < project_at, "torch must be installed before the project"
    user = [line for line in instructions if line.startswith("USER ")]
    assert user and user[-1] not in ("USER root", "USER 0"), "the image must not run as root"
    copied = " ".join(line for line in instructions if line.startswith("COPY"))
    for package in ("headdiv", "pyproject.toml"):
        assert package in copied, f"the image does not copy {package}"


def test_dockerignore_keeps_the_virtualenv_out() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def test_the_lecture_profile_puts_api_replicas_behind_nginx_that_caches_the_bundles(services: dict[str, Any]) -> None:
    """`docker compose --profile lecture up`: several API processes sharing Redis, reachable only through an
    nginx from its official image, which spreads the phones, forwards their addresses and caches bundles."""
    replicas, proxy = services["api-lecture"], services["proxy"]
    assert replicas["profiles"] == ["lecture"] and proxy["profiles"] == ["lecture"]
    command = _command(replicas)
    assert command[:2] == ["headdiv", "serve"] and int(_flag(command, "--workers")) >= 2
    assert replicas["deploy"]["replicas"] >= 2 and "ports" not in replicas, "only the proxy is reachable"
    assert replicas["environment"]["REDIS_URL"] == "redis://redis:6379/0"  # shared: cache, jobs, polls
    # X-Forwarded-For believed from the proxy's fixed address alone
    address = proxy["networks"]["lecture"]["ipv4_address"]
    assert replicas["environment"]["HEADDIV_TRUSTED_PROXIES"] == address and "lecture" in replicas["networks"]
    assert "FORWARDED_ALLOW_IPS" not in replicas["environment"]
    assert str(proxy["image"]).startswith("nginx:") and "8080:8080" in [str(p) for p in proxy["ports"]]
    mount = next(v for v in proxy["volumes"] if v.endswith("/etc/nginx/nginx.conf:ro"))
    conf = (ROOT / mount.split(":")[0]).read_text()
    port = _flag(command, "--port")
    assert f"server api-lecture:{port};" in conf and "listen 8080;" in conf
    assert "proxy_cache headdiv_static;" in conf and "proxy_cache_lock on;" in conf
    assert "_dash-component-suites" in conf and "X-Forwarded-For $remote_addr" in conf
    assert "client_header_timeout" in conf
