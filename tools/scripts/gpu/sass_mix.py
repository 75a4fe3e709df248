# SPDX-License-Identifier: LGPL-2.1-or-later
"""Instruction mix of one kernel from `ncu --page source --csv --print-source sass`: executed
instructions per warp by opcode, then the most executed SASS lines."""
import csv,sys,collections
rows=list(csv.reader(open(sys.argv[1])))
i=[k for k,r in enumerate(rows) if 'Instructions Executed' in r][0]
h=rows[i]; data=rows[i+1:]
ie=h.index('Instructions Executed'); src=h.index('Source')
warps=int(data[0][ie] or 1)
tot=sum(int(r[ie] or 0) for r in data)
print(len(data),'sass lines, total exec',tot,'per warp',tot/warps)
op=collections.Counter()
for r in data:
    n=int(r[ie] or 0); t=r[src].split()
    if not t: continue
    o=t[1] if t[0].startswith('@') else t[0]
    op[o.split('.')[0]]+=n
print(' '.join('%s:%.0f'%(k,v/warps) for k,v in op.most_common(22)))
hot=[(int(r[ie] or 0),k,r[src]) for k,r in enumerate(data)]
mx=max(h[0] for h in hot)
print('hottest block (exec count >= 0.5 max):')
for n,k,s in hot:
    if n>=0.45*mx: print('%3d %8d %s'%(k,n,s))
