"""A small test client of the protocol: HTTP with httpx, WebSocket with websockets."""

import json
import uuid
from typing import Any

import httpx
import websockets

from server.game.patch import apply


class Game:
    """A game created over HTTP, with helpers to add players and send commands."""

    def __init__(self, http: httpx.AsyncClient, game_id: str, organizer_token: str) -> None:
        self.http = http
        self.game_id = game_id
        self.organizer = organizer_token

    @classmethod
    async def create(
        cls, http: httpx.AsyncClient, ruleset: str = "card-duel", **config: Any
    ) -> "Game":
        response = await http.post(
            "/api/games", json={"ruleset": ruleset, "name": "Test", "config": config}
        )
        assert response.status_code == 201, response.text
        body = response.json()
        return cls(http, body["game_id"], body["organizer_token"])

    def auth(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    async def add(self, name: str, role: str = "player", team: str | None = None) -> dict[str, Any]:
        response = await self.http.post(
            f"/api/games/{self.game_id}/players",
            json={"name": name, "role": role, "team": team},
            headers=self.auth(self.organizer),
        )
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    async def command(self, token: str, type: str, **fields: Any) -> httpx.Response:
        body = {"command_id": str(uuid.uuid4()), "type": type, **fields}
        return await self.http.post(
            f"/api/games/{self.game_id}/commands", json=body, headers=self.auth(token)
        )

    async def ok(self, token: str, type: str, **fields: Any) -> int:
        response = await self.command(token, type, **fields)
        assert response.status_code == 200, response.text
        seq: int = response.json()["seq"]
        return seq

    async def view(self, token: str) -> dict[str, Any]:
        response = await self.http.get(f"/api/games/{self.game_id}/view", headers=self.auth(token))
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    async def events(self, token: str | None = None) -> list[dict[str, Any]]:
        response = await self.http.get(
            f"/api/games/{self.game_id}/events", headers=self.auth(token or self.organizer)
        )
        assert response.status_code == 200, response.text
        events: list[dict[str, Any]] = response.json()["events"]
        return events

    def ws_url(self, base: str, token: str, after: int | None = None) -> str:
        url = base.replace("http", "ws", 1) + f"/ws/games/{self.game_id}?token={token}"
        return url if after is None else f"{url}&after={after}"


class Phone:
    """A WebSocket client that keeps the newest view (whole views and the patches on them) and
    collects acks and errors."""

    def __init__(self, socket: websockets.ClientConnection) -> None:
        self.socket = socket
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.presence: dict[str, Any] | None = None  # an organizer's roll call, as heard

    @classmethod
    async def connect(cls, url: str) -> "Phone":
        return cls(await websockets.connect(url))

    async def receive(self, timeout: float = 5) -> dict[str, Any]:
        import asyncio

        # asyncio.timeout, not wait_for: Python 3.11's wait_for may swallow a cancellation that
        # comes as a message arrives, and a reader cancelled then read on (a suite hung on it).
        async with asyncio.timeout(timeout):
            message: dict[str, Any] = json.loads(await self.socket.recv())
        if message["type"] == "view":
            assert message["seq"] >= self.seq, "views arrive in seq order"
            self.view, self.seq = message["view"], message["seq"]
        elif message["type"] == "patch":
            assert message["base"] == self.seq, (message["base"], self.seq)
            assert message["seq"] > self.seq, "patches arrive in seq order"
            self.view, self.seq = apply(self.view, message["patch"]), message["seq"]
        elif message["type"] == "presence":
            held = {} if message["whole"] else (self.presence or {})
            self.presence = {**held, **message["members"]}
        return message

    async def until(self, kind: str, timeout: float = 5) -> dict[str, Any]:
        """The next message of this kind; "view" waits for a new view, whole or patched."""
        kinds = {"view", "patch"} if kind == "view" else {kind}
        while True:
            message = await self.receive(timeout)
            if message["type"] in kinds:
                return message

    async def send(self, type: str, command_id: str | None = None, **fields: Any) -> dict[str, Any]:
        """Send a command and return its ack or error."""
        command_id = command_id or str(uuid.uuid4())
        await self.socket.send(
            json.dumps(
                {"type": "command", "command_id": command_id, "command": {"type": type, **fields}}
            )
        )
        while True:
            message = await self.receive()
            if message["type"] in ("ack", "error") and message.get("command_id") == command_id:
                return message

    async def close(self) -> None:
        await self.socket.close()
