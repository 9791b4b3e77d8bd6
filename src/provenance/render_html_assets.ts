/**
 * The inline stylesheet and script of the provenance page
 * (`render_html.ts`). Three columns (list, graph, details), stacked below
 * 900 px. The script reads the page's JSON data and builds every panel with
 * `textContent` (never `innerHTML` with data), renders node lists lazily
 * (200 rows at a time) and a node's messages only when it is opened; the
 * page opens on the root.
 *
 * The graph sits in its own scrolling box at a size whose labels can be read
 * (R127-3): it opens fitted to the box's width only when the labels stay at
 * least {@link READ_PX} px, else at that size; zoom buttons and ctrl+wheel
 * scale it, dragging pans it, and choosing a list row scrolls its node into
 * view. The selected node gets a blue halo and fill, never a border colour,
 * so it cannot be taken for a failed job's red border (R127-4).
 *
 * @module
 */

/** The smallest label size (px) the graph opens at (Graphviz draws labels at 10 pt). */
export const READ_PX = 10;

/** Stylesheet. */
export const PAGE_CSS = `
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#222;display:grid;
grid-template-columns:minmax(260px,22%) 1fr minmax(320px,34%);grid-template-rows:auto 1fr;height:100vh}
header{grid-column:1/4;padding:6px 12px;border-bottom:1px solid #ddd;display:flex;gap:16px;align-items:baseline}
header h1{font-size:16px;margin:0}header .totals{color:#555}
#side{overflow:auto;border-right:1px solid #ddd;padding:8px;position:relative}
#graph{display:flex;flex-direction:column;overflow:hidden;min-width:0;min-height:0}
#gtools{flex:none;display:flex;gap:4px;align-items:center;padding:4px 8px;border-bottom:1px solid #eee}
#gtools button{margin:0;min-width:30px}#gtools .zoom{color:#555;min-width:44px;text-align:right}
#gtools .hint{color:#888;font-size:12px}
#gbox{flex:1 1 0;min-height:0;overflow:auto;cursor:grab;user-select:none}#gbox.drag{cursor:grabbing}#gbox svg{display:block}
#graph>p{padding:0 8px}#tables{flex:none;max-height:40%;overflow:auto;padding:0 8px;border-top:1px solid #eee}
.tscroll{overflow-x:auto}
#detail{overflow:auto;border-left:1px solid #ddd;padding:8px;word-break:break-word}#detail h2{font-size:15px}
#filter{width:100%;padding:4px;margin-bottom:6px}
.row{padding:2px 4px;cursor:pointer;border-radius:3px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.row:hover,.row.sel{background:#e8f0fb}.kind{display:inline-block;width:34px;color:#888;font-size:11px}
.msg{border-top:1px solid #eee;padding:4px 0}.role{font-weight:600;color:#2864a5}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12px/1.35 ui-monospace,monospace}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}
td:first-child,th:first-child{text-align:left}.warn{color:#8a4b08;overflow-wrap:anywhere}.status.bad{color:#c62828;font-weight:600}
g.node{cursor:pointer}g.node.sel{filter:drop-shadow(0 0 2px #1565c0) drop-shadow(0 0 5px #1565c0)}
g.node.sel polygon,g.node.sel path{fill:#cfe0f7}
button{margin:4px 0}
@media (max-width:900px){body{grid-template-columns:100%;grid-template-rows:none;height:auto}
header{grid-column:1}#side{max-height:40vh;border-right:0;border-bottom:1px solid #ddd}
#graph{display:block;overflow:visible}#gbox{max-height:70vh}#tables{overflow:visible}
#detail{border-left:0;border-top:1px solid #ddd}}`;

/**
 * The graph's part of the script: zoom (buttons, ctrl+wheel), drag to pan,
 * and \`reveal(g)\`, which scrolls a node into the box's view.
 */
const GRAPH_JS = `
var gbox=document.getElementById("gbox"),svg=gbox&&gbox.querySelector("svg"),zoom=1,w0=0,h0=0,
dragged=false,zlabel=document.getElementById("zoom");
function zoomTo(z,cx,cy){
  z=Math.max(0.02,Math.min(4,z));if(cx==null){cx=gbox.clientWidth/2;cy=gbox.clientHeight/2}
  var px=(gbox.scrollLeft+cx)/zoom,py=(gbox.scrollTop+cy)/zoom;
  zoom=z;svg.style.width=w0*z+"px";svg.style.height=h0*z+"px";
  gbox.scrollLeft=px*z-cx;gbox.scrollTop=py*z-cy;zlabel.textContent=Math.round(z*100)+"%"}
function reveal(g){
  if(!g||!gbox)return;var b=g.getBoundingClientRect(),r=gbox.getBoundingClientRect(),
  w=gbox.clientWidth,h=gbox.clientHeight;
  if(b.left>=r.left&&b.right<=r.left+w&&b.top>=r.top&&b.bottom<=r.top+h)return;
  gbox.scrollLeft+=b.left+b.width/2-r.left-w/2;gbox.scrollTop+=b.top+b.height/2-r.top-h/2}
if(svg){
  w0=svg.width.baseVal.value;h0=svg.height.baseVal.value;
  var vb=svg.viewBox.baseVal,t=svg.querySelector("g.node text"),
  fs=t&&parseFloat(t.getAttribute("font-size"))||10,px1=fs*(vb&&vb.width?w0/vb.width:4/3),
  fitW=function(){return (gbox.clientWidth-2)/w0};
  // fitted to the width only while the labels stay readable there (R127-3)
  zoomTo(Math.min(1,Math.max(fitW(),${READ_PX}/px1)),0,0);
  var on=function(id,f){document.getElementById(id).onclick=f};
  on("zout",function(){zoomTo(zoom/1.25)});on("zin",function(){zoomTo(zoom*1.25)});
  on("zfit",function(){zoomTo(Math.min(fitW(),(gbox.clientHeight-2)/h0))});on("z1",function(){zoomTo(1)});
  gbox.addEventListener("wheel",function(e){if(!e.ctrlKey&&!e.metaKey)return;e.preventDefault();
    var r=gbox.getBoundingClientRect();zoomTo(zoom*Math.exp(-e.deltaY/500),e.clientX-r.left,e.clientY-r.top)},
    {passive:false});
  var drag=null;
  gbox.addEventListener("mousedown",function(e){var r=gbox.getBoundingClientRect();dragged=false;
    if(e.button||e.clientX-r.left>=gbox.clientWidth||e.clientY-r.top>=gbox.clientHeight)return;
    drag={x:e.clientX,y:e.clientY,l:gbox.scrollLeft,t:gbox.scrollTop}});
  addEventListener("mousemove",function(e){if(!drag)return;var dx=e.clientX-drag.x,dy=e.clientY-drag.y;
    if(!dragged&&Math.abs(dx)+Math.abs(dy)<4)return;dragged=true;gbox.classList.add("drag");
    gbox.scrollLeft=drag.l-dx;gbox.scrollTop=drag.t-dy});
  addEventListener("mouseup",function(){drag=null;gbox.classList.remove("drag")});
}`;

/** Script (runs after the data element and the SVG). */
export const PAGE_JS = `
(function(){
var D=JSON.parse(document.getElementById("prov-data").textContent);
${GRAPH_JS}
function el(t,c,x){var e=document.createElement(t);if(c)e.className=c;if(x!=null)e.textContent=x;return e}
function tok(t){return "pt "+t.pt+" · ct "+t.ct+" · tt "+t.tt+" · cct "+t.cct+" · cwt "+t.cwt+" · rt "+t.rt}
var side=document.getElementById("list"),detail=document.getElementById("detail"),
filter=document.getElementById("filter"),shown=0,matches=[];
// show: scroll the node into the graph's view (chosen in the list), else its row into the list's
function select(i,show){
  var n=D.nodes[i];if(!n)return;
  document.querySelectorAll(".row.sel,g.node.sel").forEach(function(e){e.classList.remove("sel")});
  var r=document.querySelector('.row[data-i="'+i+'"]');if(r)r.classList.add("sel");
  var g=document.getElementById("node-"+i);if(g)g.classList.add("sel");
  if(show)reveal(g);else if(r&&(r.offsetTop<side.parentNode.scrollTop||
    r.offsetTop+r.offsetHeight>side.parentNode.scrollTop+side.parentNode.clientHeight))
    side.parentNode.scrollTop=r.offsetTop-side.parentNode.clientHeight/2;
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
    r.title=n.path;r.onclick=function(){select(+this.dataset.i,true)};side.insertBefore(r,moreBtn)}
  moreBtn.style.display=shown<matches.length?"":"none";
}
var moreBtn=el("button",null,"more…");moreBtn.onclick=more;side.appendChild(moreBtn);
function refilter(){var q=filter.value.toLowerCase();side.querySelectorAll(".row").forEach(function(r){r.remove()});
  matches=[];D.nodes.forEach(function(n,i){if(!q||(n.label+" "+n.path).toLowerCase().indexOf(q)>=0)matches.push(i)});
  shown=0;more()}
filter.oninput=refilter;refilter();
document.querySelectorAll("g.node").forEach(function(g){var t=g.querySelector("title");
  if(!t)return;var m=/^n(\\d+)$/.exec(t.textContent);if(!m)return;g.id="node-"+m[1];
  g.addEventListener("click",function(){if(!dragged)select(+m[1])})});
var tables=document.getElementById("tables");
(D.rollups||[]).forEach(function(r){tables.appendChild(el("h3",null,"by "+r.by.join(", ")));
  var t=el("table"),h=el("tr");r.by.concat(["inferences","pt","ct","tt","cct","cwt","rt"]).concat(r.cost?["cost"]:[])
  .forEach(function(c){h.appendChild(el("th",null,c))});t.appendChild(h);
  r.groups.forEach(function(g){var tr=el("tr");r.by.forEach(function(b){tr.appendChild(el("td",null,g.key[b]))});
    tr.appendChild(el("td",null,String(g.inferences)));
    ["pt","ct","tt","cct","cwt","rt"].forEach(function(k){tr.appendChild(el("td",null,String(g.tokens[k])))});
    if(r.cost)tr.appendChild(el("td",null,g.cost==null?"?":g.cost));t.appendChild(tr)});
  var wrap=el("div","tscroll");wrap.appendChild(t);tables.appendChild(wrap)});
(D.warnings||[]).forEach(function(w){tables.appendChild(el("div","warn",w))});
var root=0;D.nodes.forEach(function(n,i){if(n.id===D.root)root=i});
if(D.nodes.length)select(root,true);
})();`;
