"""A Redis cache that keeps the portal working while Redis is away.

Every call that fails with a Redis connection error or timeout is answered by a per-process
local-memory cache instead, and Redis is not tried again for ``FALLBACK_SECONDS``: the upload
throttle then limits per process, the ranking is computed (and kept per process; its key holds a
fingerprint of the data, so nothing stale is served), and no request fails because Redis is down.
"""

import logging
import threading
import time

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)


def _fallback(name):
    def method(self, *args, **kwargs):
        if not self._redis_down():
            try:
                return getattr(super(ResilientRedisCache, self), name)(*args, **kwargs)
            except REDIS_DOWN as exc:
                self._mark_down(exc)
        return getattr(self.local, name)(*args, **kwargs)

    method.__name__ = name
    return method


class _ReusedClient(RedisCacheClient):
    """One redis client per connection pool, made once. Django's makes a new one for every
    call, whose constructor builds a table of about 170 response callbacks: with the upload
    throttle's read and write, a noticeable part of an upload's CPU time."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            if index not in self._pools:
                self._pools[index] = self._pool_class.from_url(
                    self._servers[index], **self._pool_options
                )
            client = self._clients[index] = self._client(connection_pool=self._pools[index])
        return client


class ResilientRedisCache(RedisCache):
    """RedisCache with a per-process fallback (OPTIONS: FALLBACK_SECONDS, default 5)."""

    def __init__(self, server, params):
        params = dict(params)
        options = dict(params.get("OPTIONS") or {})
        self.fallback_seconds = float(options.pop("FALLBACK_SECONDS", 5))
        options.setdefault("socket_connect_timeout", 0.5)
        options.setdefault("socket_timeout", 1.0)
        params["OPTIONS"] = options
        super().__init__(server, params)
        self._class = _ReusedClient
        self.local = LocMemCache(
            f"resilient-fallback-{id(self)}", {"TIMEOUT": params.get("TIMEOUT", 300)}
        )
        self._down_until = 0.0
        self._lock = threading.Lock()

    def _redis_down(self) -> bool:
        return time.monotonic() < self._down_until

    def _mark_down(self, exc: Exception) -> None:
        with self._lock:
            if not self._redis_down():
                logger.warning(
                    "Redis cache unavailable (%s); using the per-process cache for %.0f s",
                    exc,
                    self.fallback_seconds,
                )
            self._down_until = time.monotonic() + self.fallback_seconds

    add = _fallback("add")
    get = _fallback("get")
    set = _fallback("set")
    touch = _fallback("touch")
    delete = _fallback("delete")
    get_many = _fallback("get_many")
    has_key = _fallback("has_key")
    incr = _fallback("incr")
    set_many = _fallback("set_many")
    delete_many = _fallback("delete_many")
    clear = _fallback("clear")
