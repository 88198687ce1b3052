"""The compiled NW step gives the eager step's numbers (compilation takes ~10 s on 2 cores)."""

from __future__ import annotations

import pytest
import torch

from headdiv.workers.engine import nw


@pytest.mark.parametrize("width", [5, 12])  # the narrow kernel and the wide one (nw.NARROW_KEYS)
def test_compiled_matches_eager(width: int, engine_device: torch.device, monkeypatch: pytest.MonkeyPatch) -> None:
    from headdiv.schemas.engine_settings import get_engine_settings

    monkeypatch.setattr(get_engine_settings(), "compile", "on")
    assert nw.warm_up() is True
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(37, 11, width, generator=g), torch.randn(37, 129, width, generator=g)
    kb, y = torch.randn(37, 129, generator=g), torch.randn(37, 129, generator=g)
    q, k, kb, y = (t.to(engine_device) for t in (q, k, kb, y))
    fast = nw.nw_attention(q, k, kb, y, with_stats=True, score_bytes=4096)
    kt = k.transpose(1, 2).contiguous()  # the layout a batch writes its keys in
    same = nw.nw_attention(q, kt, kb, y, with_stats=True, score_bytes=4096, transposed=True)
    assert all(torch.equal(a, b) for a, b in zip(fast, same, strict=True))
    (plain,) = nw.nw_attention(q, kt, kb, y, score_bytes=4096, transposed=True)
    assert torch.equal(plain, fast[0])  # the same fused kernel, its sums dropped
    monkeypatch.setattr(nw, "_compiled", {})
    monkeypatch.setattr(get_engine_settings(), "compile", "off")
    slow = nw.nw_attention(q, k, kb, y, with_stats=True, score_bytes=4096)
    for a, b in zip(fast, slow, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(nw.nw_attention(q, kt, kb, y, transposed=True)[0], fast[0], rtol=1e-5, atol=1e-6)
    w = torch.softmax(torch.baddbmm(kb.unsqueeze(1), q, k.transpose(1, 2)), dim=-1)
    torch.testing.assert_close(fast[0], (w * y.unsqueeze(1)).sum(-1), rtol=1e-5, atol=1e-6)
