/**
 * The inline stylesheet and script of the provenance page
 * (`render_html.ts`). Three columns (list, graph, details), stacked below
 * 900 px. The script reads the page's JSON data and builds every panel with
 * `textContent` (never `innerHTML` with data), renders node lists lazily
 * (200 rows at a time) and a node's messages only when it is opened; the
 * page opens on the root.
 *
 * @module
 */

/** Stylesheet. */
export const PAGE_CSS = `
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#222;display:grid;
grid-template-columns:minmax(260px,22%) 1fr minmax(320px,34%);grid-template-rows:auto 1fr;height:100vh}
header{grid-column:1/4;padding:6px 12px;border-bottom:1px solid #ddd;display:flex;gap:16px;align-items:baseline}
header h1{font-size:16px;margin:0}header .totals{color:#555}
#side{overflow:auto;border-right:1px solid #ddd;padding:8px}#graph{overflow:auto;padding:8px}#graph svg{max-width:100%;height:auto}
#detail{overflow:auto;border-left:1px solid #ddd;padding:8px;word-break:break-word}#detail h2{font-size:15px}
#filter{width:100%;padding:4px;margin-bottom:6px}
.row{padding:2px 4px;cursor:pointer;border-radius:3px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.row:hover,.row.sel{background:#e8f0fb}.kind{display:inline-block;width:34px;color:#888;font-size:11px}
.msg{border-top:1px solid #eee;padding:4px 0}.role{font-weight:600;color:#2864a5}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12px/1.35 ui-monospace,monospace}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}
td:first-child,th:first-child{text-align:left}.warn{color:#8a4b08}.status.bad{color:#c62828;font-weight:600}
g.node{cursor:pointer}g.node.sel polygon,g.node.sel path{stroke:#d33;stroke-width:2}
button{margin:4px 0}
@media (max-width:900px){body{grid-template-columns:100%;grid-template-rows:none;height:auto}
header{grid-column:1}#side{max-height:40vh;border-right:0;border-bottom:1px solid #ddd}
#detail{border-left:0;border-top:1px solid #ddd}}`;

/** Script (runs after the data element and the SVG). */
export const PAGE_JS = `
(function(){
var D=JSON.parse(document.getElementById("prov-data").textContent);
function el(t,c,x){var e=document.createElement(t);if(c)e.className=c;if(x!=null)e.textContent=x;return e}
function tok(t){return "pt "+t.pt+" · ct "+t.ct+" · tt "+t.tt+" · cct "+t.cct+" · cwt "+t.cwt+" · rt "+t.rt}
var side=document.getElementById("list"),detail=document.getElementById("detail"),
filter=document.getElementById("filter"),shown=0,matches=[];
function select(i){
  var n=D.nodes[i];if(!n)return;
  document.querySelectorAll(".row.sel,g.node.sel").forEach(function(e){e.classList.remove("sel")});
  var r=document.querySelector('.row[data-i="'+i+'"]');if(r)r.classList.add("sel");
  var g=document.getElementById("node-"+i);if(g)g.classList.add("sel");
  detail.textContent="";
  detail.appendChild(el("h2",null,n.label));
  detail.appendChild(el("div",null,n.kind+" · "+n.path));
  if(n.status)detail.appendChild(el("div",n.status==="done"?"status":"status bad",
    "status: "+n.status+(n.error?" — "+n.error:"")));
  detail.appendChild(el("div",null,"direct: "+tok(n.tokens.direct)+(n.cost?" · "+n.cost.direct:"")));
  detail.appendChild(el("div",null,"subtree: "+tok(n.tokens.subtree)+(n.cost?" · "+n.cost.subtree:"")));
  var box=el("div","messages");box.id="messages";detail.appendChild(box);
  if(!n.messages){box.appendChild(el("p",null,n.outside?"(outside the store: not embedded)":"(no messages read for this node)"));return}
  if(n.source)box.appendChild(el("p",null,"its conversation ("+n.source+"):"));
  n.messages.forEach(function(m){
    var d=el("div","msg");var fold=m.fold||m.text.length>600;
    if(fold){var det=el("details");var s=el("summary");s.appendChild(el("span","role",m.role+": "));
      s.appendChild(document.createTextNode(m.text.slice(0,100)));det.appendChild(s);
      det.appendChild(el("pre",null,m.text));d.appendChild(det)}
    else{d.appendChild(el("span","role",m.role+":"));d.appendChild(el("pre",null,m.text))}
    box.appendChild(d)});
  if(n.omitted)box.appendChild(el("p",null,n.omitted+" more messages not included"));
}
function more(){
  var end=Math.min(matches.length,shown+200);
  for(;shown<end;shown++){var i=matches[shown],n=D.nodes[i],r=el("div","row");r.dataset.i=i;
    r.appendChild(el("span","kind",n.kind));r.appendChild(document.createTextNode(n.label));
    r.title=n.path;r.onclick=function(){select(+this.dataset.i)};side.insertBefore(r,moreBtn)}
  moreBtn.style.display=shown<matches.length?"":"none";
}
var moreBtn=el("button",null,"more…");moreBtn.onclick=more;side.appendChild(moreBtn);
function refilter(){var q=filter.value.toLowerCase();side.querySelectorAll(".row").forEach(function(r){r.remove()});
  matches=[];D.nodes.forEach(function(n,i){if(!q||(n.label+" "+n.path).toLowerCase().indexOf(q)>=0)matches.push(i)});
  shown=0;more()}
filter.oninput=refilter;refilter();
document.querySelectorAll("g.node").forEach(function(g){var t=g.querySelector("title");
  if(!t)return;var m=/^n(\\d+)$/.exec(t.textContent);if(!m)return;g.id="node-"+m[1];
  g.addEventListener("click",function(){select(+m[1])})});
var tables=document.getElementById("tables");
(D.rollups||[]).forEach(function(r){tables.appendChild(el("h3",null,"by "+r.by.join(", ")));
  var t=el("table"),h=el("tr");r.by.concat(["inferences","pt","ct","tt","cct","cwt","rt"]).concat(r.cost?["cost"]:[])
  .forEach(function(c){h.appendChild(el("th",null,c))});t.appendChild(h);
  r.groups.forEach(function(g){var tr=el("tr");r.by.forEach(function(b){tr.appendChild(el("td",null,g.key[b]))});
    tr.appendChild(el("td",null,String(g.inferences)));
    ["pt","ct","tt","cct","cwt","rt"].forEach(function(k){tr.appendChild(el("td",null,String(g.tokens[k])))});
    if(r.cost)tr.appendChild(el("td",null,g.cost==null?"?":g.cost));t.appendChild(tr)});
  tables.appendChild(t)});
(D.warnings||[]).forEach(function(w){tables.appendChild(el("div","warn",w))});
var root=0;D.nodes.forEach(function(n,i){if(n.id===D.root)root=i});
if(D.nodes.length)select(root);
})();`;
