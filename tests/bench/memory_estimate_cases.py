#!/usr/bin/env python3
"""The memory estimate against the max RSS of `waitroom run` (docs/perf.md, "Memory per
waiting user"): variants of the flash crowd, written to the current folder, each run once
under WAITROOM_MEMORY_LIMIT=1 (the refusal prints the estimate) and once under
/usr/bin/time. Usage: memory_estimate_cases.py WAITROOM [CASE ...]"""
import json, subprocess, re, os, sys
B = sys.argv[1]
def fc(n, dur=60, batch=None, extra_cls=None, queue=None, release_extra=None, top=None, horizon=None):
    c=[{"name":"vip","share":0.2,"offset_ms":10000},{"name":"normal","share":0.8}]
    if extra_cls:
        for x in c: x.update(extra_cls)
    s={"name":"m","seed":1,"classes":c,
       "arrivals":{"process":"piecewise","segments":[{"duration_s":dur,"rate_per_s":n/dur}]},
       "queue":dict({"policy":"offset","time_unit":"ms"}, **(queue or {})),
       "release":dict({"mode":"tick","interval_ms":200,"batch":batch or int(n/3000)+1}, **(release_extra or {})),
       "run":{"sample_interval_s":1}}
    if horizon: s["run"]["horizon_s"]=horizon
    if top: s.update(top)
    return s
cases={
 "stable_patience_1e6": fc(10e6, dur=100, batch=30000, extra_cls={"patience_s":{"dist":"exponential","mean":1e6}}),
 "flash_patience_0.5": fc(10e6, extra_cls={"patience_s":{"dist":"exponential","mean":0.5}}),
 "flash_patience_1e5": fc(10e6, extra_cls={"patience_s":{"dist":"exponential","mean":1e5}}),
 "returns_0.9": fc(1e6, batch=10000, top={"returns":{"probability":0.9,"delay_s":{"dist":"exponential","mean":120}}}),
 "lottery_90pct": fc(1e6, batch=3000, release_extra={"selection":{"kind":"lottery","class_weights":{"vip":5,"normal":1}}}, horizon=66),
 "follow_1": fc(1e6, top={"polling":{"interval_s":3,"cache_s":10,"follow_share":1}}),
 "flash_10M": fc(10e6),
 "lottery_10M": fc(10e6, release_extra={"selection":{"kind":"lottery","class_weights":{"vip":5,"normal":1}}}),
 "normal_patience": fc(10e6, extra_cls={"patience_s":{"dist":"normal","mean":0,"stddev":1e6}}),
}
only=sys.argv[2:]
for name,s in cases.items():
    if only and name not in only: continue
    f=name+'.json'; json.dump(s,open(f,'w'))
    e=subprocess.run([B,'run',f,'--out','/dev/null'],env=dict(os.environ,WAITROOM_MEMORY_LIMIT='1'),capture_output=True,text=True).stderr
    m=re.search(r'estimated ([0-9.]+) GB',e)
    t=subprocess.run(['/usr/bin/time','-f','%M',B,'run',f,'--format','json','--out','/dev/null'],capture_output=True,text=True)
    rss=int(t.stderr.strip().split('\n')[-1])*1024/1e9
    est=float(m.group(1)) if m else None
    print(f'{name:22s} est {est} GB  rss {rss:.3f} GB  ratio {est/rss if est else 0:.2f}', flush=True)
