"use strict";(self.rspackChunktapelsp_jupyterlab=self.rspackChunktapelsp_jupyterlab||[]).push([[232],{475(e,t,r){var o=r(601),a=r.n(o),n=r(314),p=r.n(n),s=r(417),i=r.n(s),l=new URL(r(836),r.b),c=new URL(r(78),r.b),d=new URL(r(852),r.b),u=p()(a()),f=i()(l),g=i()(c),v=i()(d);u.push([e.id,`/* tapelsp sidebar and underlines. Colours come from JupyterLab's theme variables. */
.tapelsp-sidebar {
  display: flex;
  flex-direction: column;
  gap: 6px;
  padding: 8px;
  overflow-y: auto;
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
}
/* Wider than JupyterLab's 250 px side panels: messages and buttons need the room. */
#jp-right-stack > #tapelsp-sidebar,
#jp-left-stack > #tapelsp-sidebar {
  min-width: 320px;
}
.tapelsp-header { display: flex; align-items: baseline; gap: 8px; }
.tapelsp-title { font-weight: 600; font-size: var(--jp-ui-font-size2); }
.tapelsp-notebook { color: var(--jp-ui-font-color2); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tapelsp-toolbar, .tapelsp-filters, .tapelsp-actions { display: flex; flex-wrap: wrap; gap: 4px; }
.tapelsp-button {
  border: 1px solid var(--jp-border-color1);
  border-radius: 3px;
  background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1);
  padding: 2px 8px;
  cursor: pointer;
  font-size: var(--jp-ui-font-size1);
}
.tapelsp-button:hover:enabled { background: var(--jp-layout-color3); }
.tapelsp-button:disabled { opacity: 0.5; cursor: default; }
.tapelsp-filter { opacity: 0.55; }
.tapelsp-filter.tapelsp-on { opacity: 1; border-color: var(--jp-brand-color1); }
.tapelsp-status { color: var(--jp-ui-font-color2); }
.tapelsp-status-error { color: var(--jp-error-color1); white-space: pre-wrap; }
.tapelsp-notice { color: var(--jp-warn-color1); }
.tapelsp-runtime {
  border-left: 3px solid var(--jp-success-color1);
  padding: 4px 6px;
  background: var(--jp-layout-color2);
}
.tapelsp-runtime-title { font-weight: 600; }
.tapelsp-runtime-summary { white-space: pre-wrap; }
.tapelsp-findings { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
.tapelsp-finding {
  border: 1px solid var(--jp-border-color2);
  border-left-width: 4px;
  border-radius: 3px;
  padding: 4px 6px;
  cursor: pointer;
}
.tapelsp-finding:hover, .tapelsp-finding:focus { background: var(--jp-layout-color2); outline: none; }
.tapelsp-finding.tapelsp-severity-error { border-left-color: var(--jp-error-color1); }
.tapelsp-finding.tapelsp-severity-warning { border-left-color: var(--jp-warn-color1); }
.tapelsp-finding.tapelsp-severity-information { border-left-color: var(--jp-info-color1); }
.tapelsp-finding-head { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; }
.tapelsp-severity { font-size: 10px; text-transform: uppercase; color: var(--jp-ui-font-color2); }
.tapelsp-code { font-family: var(--jp-code-font-family); font-weight: 600; }
.tapelsp-location { color: var(--jp-ui-font-color2); }
.tapelsp-badge { border-radius: 8px; padding: 0 6px; font-size: 11px; color: white; }
.tapelsp-badge-confirmed { background: var(--jp-success-color1); }
.tapelsp-badge-runtime-only { background: var(--jp-warn-color1); }
.tapelsp-badge-refuted { background: var(--jp-layout-color4); }
.tapelsp-message { margin: 3px 0; white-space: pre-wrap; word-break: break-word; }
.tapelsp-evidence {
  margin: 3px 0;
  padding: 2px 4px;
  font-family: var(--jp-code-font-family);
  font-size: 11px;
  background: var(--jp-layout-color2);
  white-space: pre-wrap;
  word-break: break-word;
}
.tapelsp-finding:not(.tapelsp-expanded) .tapelsp-message,
.tapelsp-finding:not(.tapelsp-expanded) .tapelsp-evidence {
  display: -webkit-box;
  -webkit-box-orient: vertical;
  -webkit-line-clamp: 4;
  overflow: hidden;
}
.tapelsp-unsafe { border-color: var(--jp-warn-color1); }
.tapelsp-doc { margin-top: 4px; padding: 4px; border-top: 1px solid var(--jp-border-color2); cursor: auto; }
.tapelsp-empty { color: var(--jp-ui-font-color2); }
.tapelsp-doc h1 { font-size: var(--jp-content-font-size3); margin-top: 4px; }
.tapelsp-doc h2 { font-size: var(--jp-content-font-size2); }
.tapelsp-doc h3 { font-size: var(--jp-content-font-size1); }
.tapelsp-doc .jp-RenderedMarkdown { padding-right: 0; font-size: var(--jp-ui-font-size1); }

/* Underlines in the cell editors: a wave drawn as a background image (as CodeMirror's lint
   does), so that the syntax colours of the tokens inside do not change its colour. */
.tapelsp-underline { background-position: left bottom; background-repeat: repeat-x; padding-bottom: 1px; }
.tapelsp-underline-error { background-image: url(${f}); }
.tapelsp-underline-warning { background-image: url(${g}); }
.tapelsp-underline-information { background-image: url(${v}); }
.tapelsp-underline-confirmed { background-color: rgba(211, 47, 47, 0.1); }
`,""]),r.d(t,{},{A:u})},314(e){e.exports=function(e){var t=[];return t.toString=function(){return this.map(function(t){var r="",o=void 0!==t[5];return t[4]&&(r+="@supports (".concat(t[4],") {")),t[2]&&(r+="@media ".concat(t[2]," {")),o&&(r+="@layer".concat(t[5].length>0?" ".concat(t[5]):""," {")),r+=e(t),o&&(r+="}"),t[2]&&(r+="}"),t[4]&&(r+="}"),r}).join("")},t.i=function(e,r,o,a,n){"string"==typeof e&&(e=[[null,e,void 0]]);var p={};if(o)for(var s=0;s<this.length;s++){var i=this[s][0];null!=i&&(p[i]=!0)}for(var l=0;l<e.length;l++){var c=[].concat(e[l]);o&&p[c[0]]||(void 0!==n&&(void 0===c[5]||(c[1]="@layer".concat(c[5].length>0?" ".concat(c[5]):""," {").concat(c[1],"}")),c[5]=n),r&&(c[2]&&(c[1]="@media ".concat(c[2]," {").concat(c[1],"}")),c[2]=r),a&&(c[4]?(c[1]="@supports (".concat(c[4],") {").concat(c[1],"}"),c[4]=a):c[4]="".concat(a)),t.push(c))}},t}},417(e){e.exports=function(e,t){return(t||(t={}),e&&(e=String(e.__esModule?e.default:e),/^['"].*['"]$/.test(e)&&(e=e.slice(1,-1)),t.hash&&(e+=t.hash),/["'() \t\n]|(%20)/.test(e)||t.needQuotes))?'"'.concat(e.replace(/"/g,'\\"').replace(/\n/g,"\\n"),'"'):e}},601(e){e.exports=function(e){return e[1]}},72(e){var t=[];function r(e){for(var r=-1,o=0;o<t.length;o++)if(t[o].identifier===e){r=o;break}return r}function o(e,o){for(var a={},n=[],p=0;p<e.length;p++){var s=e[p],i=o.base?s[0]+o.base:s[0],l=a[i]||0,c="".concat(i," ").concat(l);a[i]=l+1;var d=r(c),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==d)t[d].references++,t[d].updater(u);else{var f=function(e,t){var r=t.domAPI(t);return r.update(e),function(t){t?(t.css!==e.css||t.media!==e.media||t.sourceMap!==e.sourceMap||t.supports!==e.supports||t.layer!==e.layer)&&r.update(e=t):r.remove()}}(u,o);o.byIndex=p,t.splice(p,0,{identifier:c,updater:f,references:1})}n.push(c)}return n}e.exports=function(e,a){var n=o(e=e||[],a=a||{});return function(e){e=e||[];for(var p=0;p<n.length;p++){var s=r(n[p]);t[s].references--}for(var i=o(e,a),l=0;l<n.length;l++){var c=r(n[l]);0===t[c].references&&(t[c].updater(),t.splice(c,1))}n=i}}},659(e){var t={};e.exports=function(e,r){var o=function(e){if(void 0===t[e]){var r=document.querySelector(e);if(window.HTMLIFrameElement&&r instanceof window.HTMLIFrameElement)try{r=r.contentDocument.head}catch(e){r=null}t[e]=r}return t[e]}(e);if(!o)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");o.appendChild(r)}},540(e){e.exports=function(e){var t=document.createElement("style");return e.setAttributes(t,e.attributes),e.insert(t,e.options),t}},56(e,t,r){e.exports=function(e){var t=r.nc;t&&e.setAttribute("nonce",t)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var t=e.insertStyleElement(e);return{update:function(r){var o,a,n;o="",r.supports&&(o+="@supports (".concat(r.supports,") {")),r.media&&(o+="@media ".concat(r.media," {")),(a=void 0!==r.layer)&&(o+="@layer".concat(r.layer.length>0?" ".concat(r.layer):""," {")),o+=r.css,a&&(o+="}"),r.media&&(o+="}"),r.supports&&(o+="}"),(n=r.sourceMap)&&"u">typeof btoa&&(o+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(n))))," */")),e.styleTagTransform(o,t,e.options)},remove:function(){var e;null===(e=t).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,t){if(t.styleSheet)t.styleSheet.cssText=e;else{for(;t.firstChild;)t.removeChild(t.firstChild);t.appendChild(document.createTextNode(e))}}},579(e,t,r){var o=r(72),a=r.n(o),n=r(825),p=r.n(n),s=r(659),i=r.n(s),l=r(56),c=r.n(l),d=r(540),u=r.n(d),f=r(113),g=r.n(f),v=r(475),h={};h.styleTagTransform=g(),h.setAttributes=c(),h.insert=i().bind(null,"head"),h.domAPI=p(),h.insertStyleElement=u(),a()(v.A,h),v.A&&v.A.locals&&v.A.locals},852(e){e.exports="data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%276%27 height=%273%27%3E%3Cpath d=%27m0 2.5 l1.5 -2 l1.5 2 l1.5 -2 l1.5 2%27 stroke=%27%231976d2%27 fill=%27none%27 stroke-width=%27.9%27/%3E%3C/svg%3E"},836(e){e.exports="data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%276%27 height=%273%27%3E%3Cpath d=%27m0 2.5 l1.5 -2 l1.5 2 l1.5 -2 l1.5 2%27 stroke=%27%23d32f2f%27 fill=%27none%27 stroke-width=%27.9%27/%3E%3C/svg%3E"},78(e){e.exports="data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%276%27 height=%273%27%3E%3Cpath d=%27m0 2.5 l1.5 -2 l1.5 2 l1.5 -2 l1.5 2%27 stroke=%27%23f57c00%27 fill=%27none%27 stroke-width=%27.9%27/%3E%3C/svg%3E"}}]);