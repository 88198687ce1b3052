# headdiv image: the API, the dashboard and the worker share it (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# torch first, pinned, in its own layer: the project's `torch>=` requirement is then already satisfied, so
# pip never swaps in another build, and code changes do not reinstall it. From PyPI this is the Linux build
# with CUDA, which the GPU workers need; for a smaller CPU-only image pass
# --build-arg TORCH_PIP_ARGS="--index-url <a CPU wheel index>".
ARG TORCH=torch==2.13.0
ARG TORCH_PIP_ARGS=""
RUN pip install ${TORCH_PIP_ARGS} "${TORCH}"

COPY pyproject.toml README.md ./
COPY headdiv ./headdiv
RUN pip install .

RUN useradd --create-home --uid 10001 headdiv
USER headdiv

EXPOSE 8050 8051
CMD ["headdiv", "serve", "--host", "0.0.0.0", "--port", "8050"]
