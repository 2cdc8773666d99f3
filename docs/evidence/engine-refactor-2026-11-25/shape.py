import json,sys,glob,os
def keys(v, p=''):
    out=set()
    if isinstance(v, dict):
        for k,x in v.items():
            kp = p+'.'+k
            # map-like (ids as keys): summarize dynamic keys
            out.add(kp); out |= keys(x, kp)
    elif isinstance(v, list):
        for x in v: out |= keys(x, p+'[]')
    return out
def summarize(d):
    s=json.load(open(os.path.join(d,'summary.json')))
    m=json.load(open(os.path.join(d,'manifest.json')))
    return s, m
for name in sys.argv[3:]:
    a=glob.glob(f'/tmp/cmp/{sys.argv[1]}/{name}-*')[0]; b=glob.glob(f'/tmp/cmp/{sys.argv[2]}/{name}-*')[0]
    sa,ma=summarize(a); sb,mb=summarize(b)
    ida=[c['id'] for c in sa['cells']]; idb=[c['id'] for c in sb['cells']]
    ka=keys(sa); kb=keys(sb); kma=keys(ma); kmb=keys(mb)
    fa=sorted(os.path.relpath(os.path.join(r,f),a) for r,_,fs in os.walk(a) for f in fs if not f.endswith('.log') and 'platform/' not in os.path.join(r,f))
    fb=sorted(os.path.relpath(os.path.join(r,f),b) for r,_,fs in os.walk(b) for f in fs if not f.endswith('.log') and 'platform/' not in os.path.join(r,f))
    print(name, 'cells', len(ida), 'ids same' if ida==idb else 'IDS DIFFER', '| summary keys', len(ka), 'same' if ka==kb else f'DIFF -{sorted(ka-kb)[:8]} +{sorted(kb-ka)[:8]}',
      '| manifest keys', 'same' if kma==kmb else f'DIFF -{sorted(kma-kmb)[:6]} +{sorted(kmb-kma)[:6]}', '| files', len(fa), 'same' if fa==fb else f'DIFF -{sorted(set(fa)-set(fb))[:5]} +{sorted(set(fb)-set(fa))[:5]}')
    print('   status', ma['status'], mb['status'])
