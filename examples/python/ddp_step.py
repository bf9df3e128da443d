"""Data-parallel training with gradients all-reduced through Shoal.

Every PE holds the same model and takes its share of each batch; after the
backward pass the gradients are summed over the PEs in one symmetric buffer
(shoal.torch.allreduce) and divided by the number of PEs, so each PE applies
the same update a single process would with the whole batch.

    shoalrun -n 4 /usr/bin/python3 examples/python/ddp_step.py      # 4 PEs
    /usr/bin/python3 examples/python/ddp_step.py --reference        # one process, whole batch

Both print the final parameters' checksum; --check FILE compares the
parameters with those a --reference run saved to FILE.
"""
import argparse
import sys

import torch

BATCH, STEPS, LR = 64, 5, 0.1


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))


def batch(step):
    g = torch.Generator().manual_seed(100 + step)
    x = torch.randn(BATCH, 16, generator=g, dtype=torch.float64)
    y = torch.randn(BATCH, 4, generator=g, dtype=torch.float64)
    return x, y


def train(rank, size, allreduce=None):
    model = make_model().double()
    params = list(model.parameters())
    for step in range(STEPS):
        x, y = batch(step)
        lo, hi = rank * BATCH // size, (rank + 1) * BATCH // size
        model.zero_grad()
        # Sum (not mean) of the shard's losses, so the shards' gradients add up
        # to the whole batch's; dividing by BATCH afterwards gives its mean.
        loss = torch.nn.functional.mse_loss(model(x[lo:hi]), y[lo:hi], reduction="sum")
        loss.backward()
        grads = torch.cat([p.grad.reshape(-1) for p in params])
        if allreduce is not None:
            grads = allreduce(grads)
        with torch.no_grad():
            off = 0
            for p in params:
                n = p.numel()
                p -= LR * grads[off:off + n].reshape(p.shape) / BATCH
                off += n
    return torch.cat([p.detach().reshape(-1) for p in params])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", metavar="FILE", nargs="?", const="",
                    help="train in one process (save the parameters to FILE)")
    ap.add_argument("--check", metavar="FILE", help="compare with a reference run's FILE")
    args = ap.parse_args()
    if args.reference is not None:
        final = train(0, 1)
        if args.reference:
            torch.save(final, args.reference)
        print(f"reference checksum {final.sum().item():.12f}")
        return 0

    import shoal
    import shoal.torch as st
    me, n = shoal.my_pe(), shoal.n_pes()
    nparams = sum(p.numel() for p in make_model().parameters())
    buf = st.zeros(nparams, dtype=torch.float64)      # symmetric, reused each step

    def allreduce(grads):
        buf.copy_(grads)
        st.allreduce(buf, "sum")
        return buf.clone()

    final = train(me, n, allreduce)
    print(f"PE {me} of {n} checksum {final.sum().item():.12f}", flush=True)
    if args.check:
        ref = torch.load(args.check)
        if not torch.allclose(final, ref, rtol=1e-12, atol=1e-12):
            print(f"PE {me}: parameters differ from the single-process run by "
                  f"{(final - ref).abs().max().item():.3e}", file=sys.stderr)
            return 1
        print(f"PE {me}: matches the single-process run", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
