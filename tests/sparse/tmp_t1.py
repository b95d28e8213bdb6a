import numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla
import pytest
import krylov_host
from rocarray.sparse import linalg as ral
from rocarray.sparse.linalg import _isolve
def test_x(monkeypatch):
    krylov_host.install(monkeypatch)
    n=50
    rng=np.random.default_rng(0)
    A=sp.diags([-1,2.5,-1],[-1,0,1],shape=(n,n)).toarray()
    b=rng.standard_normal(n)
    op=ral.LinearOperator((n,n), matvec=lambda v: A@v, dtype=A.dtype) if hasattr(ral,'LinearOperator') else None
    from rocarray.sparse.linalg._interface import LinearOperator
    op=LinearOperator((n,n), matvec=lambda v: A@v, rmatvec=lambda v: A.T@v, dtype=A.dtype)
    for fn in ("cg","bicgstab","gmres"):
        xs=[]; ys=[]
        x,i=getattr(_isolve,fn)(op,b,callback=lambda v: xs.append(np.copy(v)), **({"callback_type":"x"} if fn=="gmres" else {}))
        y,j=getattr(sla,fn)(A,b,callback=lambda v: ys.append(np.copy(v)), **({"callback_type":"x"} if fn=="gmres" else {}))
        print(fn, i, j, len(xs), len(ys), np.abs(x-y).max())
        assert i==j and len(xs)==len(ys)
