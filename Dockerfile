# Production image: API, worker and MCP server share it; compose picks the command.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY leadline leadline
COPY models models
COPY resolvers resolvers
COPY schema schema
COPY rest_compat rest_compat
COPY jobs jobs
COPY mcp_server mcp_server
RUN pip install --no-cache-dir .
ENV LEADLINE_ENV=production LEADLINE_HOST=0.0.0.0 LEADLINE_PORT=8080
EXPOSE 8080 8081
CMD ["leadline", "serve"]
