/*
 * shoal-trace view: trace.json as one self-contained HTML page that draws
 * it (one track per PE, a row per thread, a box per call coloured by
 * family, an arrow from each put-with-signal to the wait it released, a
 * time axis). It needs no network and no trace viewer: any browser opens
 * it, and headless Chromium renders it to a PNG (docs/debugging.md).
 * The page embeds the trace; its script is below.
 */
#include <stdio.h>
#include <stdlib.h>

#include "view.h"

static const char page_head[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Shoal trace</title>\n"
    "<style>body{font:12px sans-serif;margin:8px;background:#fff}"
    "svg text{font:11px sans-serif}#info{margin:4px 0;color:#333}</style></head>\n"
    "<body><div id=\"info\"></div><svg id=\"v\" xmlns=\"http://www.w3.org/2000/svg\"></svg>\n"
    "<script>const TRACE=\n";

/* Draws TRACE into the svg: layout first (tracks, rows), then boxes,
 * arrows and the axis. Hovering a box shows its routine and arguments. */
static const char page_script[] =
    ";\n</script>\n<script>\n"
    "(function(){\n"
    "const W=Math.max(900,window.innerWidth-16),LEFT=70,RIGHT=10,ROW=18,GAP=8,TOP=34;\n"
    "const ev=TRACE.traceEvents,NS='http://www.w3.org/2000/svg',svg=document.getElementById('v');\n"
    "const colors={'put':'#4e79a7','get':'#59a14f','amo':'#edc948','signal':'#e15759',\n"
    " 'wait':'#bab0ac','barrier/collective':'#f28e2b','alloc':'#b07aa1',\n"
    " 'quiet/fence':'#76b7b2','network':'#9c755f','user range':'#d4d4d4'};\n"
    "const names={};const rows={};let t0=Infinity,t1=0;\n"
    "for(const e of ev){if(e.ph==='M'&&e.name==='process_name')names[e.pid]=e.args.name;\n"
    " if(e.ph==='X'){(rows[e.pid]=rows[e.pid]||new Set()).add(e.tid);t0=Math.min(t0,e.ts);"
    "t1=Math.max(t1,e.ts+e.dur);}}\n"
    "if(!isFinite(t0)){t0=0;t1=1;}\n"
    "const pids=Object.keys(names).map(Number).sort((a,b)=>a-b);\n"
    "const y={};let h=TOP;\n"
    "for(const p of pids){const tids=[...(rows[p]||[0])].sort((a,b)=>a-b);y[p]={};\n"
    " tids.forEach((t,i)=>{y[p][t]=h+i*ROW;});y[p].top=h;h+=Math.max(1,tids.length)*ROW+GAP;"
    "y[p].bottom=h-GAP;}\n"
    "const x=t=>LEFT+(t-t0)/(t1-t0||1)*(W-LEFT-RIGHT);\n"
    "function el(tag,at,parent){const n=document.createElementNS(NS,tag);"
    "for(const k in at)n.setAttribute(k,at[k]);(parent||svg).appendChild(n);return n;}\n"
    "svg.setAttribute('width',W);svg.setAttribute('height',h+24);\n"
    "pids.forEach((p,i)=>{el('rect',{x:0,y:y[p].top-2,width:W,height:y[p].bottom-y[p].top+4,"
    "fill:i%2?'#f4f4f4':'#fafafa'});\n"
    " el('text',{x:4,y:y[p].top+13,fill:'#000'}).textContent=names[p];});\n"
    "const used={};\n"
    "for(const e of ev){if(e.ph!=='X')continue;const "
    "yy=y[e.pid][e.tid];if(yy===undefined)continue;\n"
    " const x0=x(e.ts),w=Math.max(1,x(e.ts+e.dur)-x0);used[e.cat]=1;\n"
    " const r=el('rect',{x:x0,y:yy,width:w,height:ROW-4,fill:colors[e.cat]||'#888'});\n"
    " el('title',{},r).textContent=e.name+' '+e.dur.toFixed(3)+' us '+JSON.stringify(e.args);\n"
    " if(w>7*e.name.length)el('text',{x:x0+2,y:yy+ROW-8,fill:'#fff'}).textContent=e.name;}\n"
    "const ends={};for(const e of ev)if(e.ph==='f')ends[e.id]=e;\n"
    "el('path',{d:'M0,0 L6,3 L0,6 z',fill:'#000'},el('marker',{id:'a',markerWidth:6,"
    "markerHeight:6,refX:6,refY:3,orient:'auto'},el('defs',{})));\n"
    "let nflows=0;\n"
    "for(const s of ev){if(s.ph!=='s'||!ends[s.id])continue;const f=ends[s.id];"
    "if(!y[s.pid]||!y[f.pid])continue;nflows++;\n"
    " el('line',{x1:x(s.ts),y1:y[s.pid][s.tid]+ROW/2,x2:x(f.ts),y2:y[f.pid][f.tid]+ROW/2,"
    "stroke:'#000','stroke-width':1,'marker-end':'url(#a)'});}\n"
    "const span=t1-t0,step=Math.pow(10,Math.floor(Math.log10(span/5||1)));\n"
    "const tick=span/step>10?(span/step>25?step*5:step*2):step;\n"
    "for(let t=0;t<=span;t+=tick){const xx=x(t0+t);"
    "el('line',{x1:xx,y1:TOP-6,x2:xx,y2:h-GAP,stroke:'#ccc','stroke-width':0.5});\n"
    " el('text',{x:xx+2,y:TOP-8,fill:'#555'}).textContent=(t>=1000?(t/1000).toFixed(1)+' ms':"
    "t.toFixed(0)+' us');}\n"
    "let lx=LEFT;for(const c in colors){if(!used[c])continue;el('rect',{x:lx,y:h+6,width:10,"
    "height:10,fill:colors[c]});el('text',{x:lx+13,y:h+15}).textContent=c;lx+=20+7*c.length;}\n"
    "const od=TRACE.otherData||{};\n"
    "document.getElementById('info').textContent='Shoal trace: '+pids.length+' PEs, '+"
    "ev.filter(e=>e.ph==='X').length+' calls, '+nflows+' signal arrows over '+"
    "(span/1000).toFixed(3)+' ms'+(od.unfinished&&od.unfinished.length?"
    "'; unfinished PEs: '+od.unfinished.join(','):'');\n"
    "document.title='Shoal trace ('+pids.length+' PEs)';\n"
    "})();\n</script></body></html>\n";

int shoal_trace_view(const char *json_path, const char *html_path)
{
    FILE *in = fopen(json_path, "r");
    if (in == NULL) {
        fprintf(stderr, "shoal-trace view: cannot read %s: %m\n", json_path);
        return 1;
    }
    FILE *out = fopen(html_path, "w");
    if (out == NULL) {
        fprintf(stderr, "shoal-trace view: cannot write %s: %m\n", html_path);
        fclose(in);
        return 1;
    }
    fputs(page_head, out);
    char buf[65536];
    size_t n;
    int last = 0;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
        /* "</" would end the script element early; JSON allows "<\/". */
        for (size_t i = 0; i < n; i++) {
            if (buf[i] == '/' && last == '<')
                fputc('\\', out);
            fputc(buf[i], out);
            last = buf[i];
        }
    }
    fputs(page_script, out);
    int bad = ferror(in);
    fclose(in);
    if (fclose(out) != 0 || bad) {
        fprintf(stderr, "shoal-trace view: writing %s failed: %m\n", html_path);
        return 1;
    }
    return 0;
}
