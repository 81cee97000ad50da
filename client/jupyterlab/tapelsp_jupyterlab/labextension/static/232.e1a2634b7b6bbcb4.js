"use strict";(self.rspackChunktapelsp_jupyterlab=self.rspackChunktapelsp_jupyterlab||[]).push([[232],{475(e,r,t){var o=t(601),a=t.n(o),n=t(314),p=t.n(n),s=t(417),i=t.n(s),l=new URL(t(836),t.b),c=new URL(t(78),t.b),d=new URL(t(852),t.b),u=p()(a()),f=i()(l),g=i()(c),v=i()(d);u.push([e.id,`/* tapelsp sidebar and underlines. Colours come from JupyterLab's theme variables. */
.tapelsp-sidebar {
  display: flex;
  flex-direction: column;
  gap: 6px;
  padding: 8px;
  overflow-y: auto;
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
  min-width: 340px;
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
`,""]),t.d(r,{},{A:u})},314(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var t="",o=void 0!==r[5];return r[4]&&(t+="@supports (".concat(r[4],") {")),r[2]&&(t+="@media ".concat(r[2]," {")),o&&(t+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),t+=e(r),o&&(t+="}"),r[2]&&(t+="}"),r[4]&&(t+="}"),t}).join("")},r.i=function(e,t,o,a,n){"string"==typeof e&&(e=[[null,e,void 0]]);var p={};if(o)for(var s=0;s<this.length;s++){var i=this[s][0];null!=i&&(p[i]=!0)}for(var l=0;l<e.length;l++){var c=[].concat(e[l]);o&&p[c[0]]||(void 0!==n&&(void 0===c[5]||(c[1]="@layer".concat(c[5].length>0?" ".concat(c[5]):""," {").concat(c[1],"}")),c[5]=n),t&&(c[2]&&(c[1]="@media ".concat(c[2]," {").concat(c[1],"}")),c[2]=t),a&&(c[4]?(c[1]="@supports (".concat(c[4],") {").concat(c[1],"}"),c[4]=a):c[4]="".concat(a)),r.push(c))}},r}},417(e){e.exports=function(e,r){return(r||(r={}),e&&(e=String(e.__esModule?e.default:e),/^['"].*['"]$/.test(e)&&(e=e.slice(1,-1)),r.hash&&(e+=r.hash),/["'() \t\n]|(%20)/.test(e)||r.needQuotes))?'"'.concat(e.replace(/"/g,'\\"').replace(/\n/g,"\\n"),'"'):e}},601(e){e.exports=function(e){return e[1]}},72(e){var r=[];function t(e){for(var t=-1,o=0;o<r.length;o++)if(r[o].identifier===e){t=o;break}return t}function o(e,o){for(var a={},n=[],p=0;p<e.length;p++){var s=e[p],i=o.base?s[0]+o.base:s[0],l=a[i]||0,c="".concat(i," ").concat(l);a[i]=l+1;var d=t(c),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==d)r[d].references++,r[d].updater(u);else{var f=function(e,r){var t=r.domAPI(r);return t.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&t.update(e=r):t.remove()}}(u,o);o.byIndex=p,r.splice(p,0,{identifier:c,updater:f,references:1})}n.push(c)}return n}e.exports=function(e,a){var n=o(e=e||[],a=a||{});return function(e){e=e||[];for(var p=0;p<n.length;p++){var s=t(n[p]);r[s].references--}for(var i=o(e,a),l=0;l<n.length;l++){var c=t(n[l]);0===r[c].references&&(r[c].updater(),r.splice(c,1))}n=i}}},659(e){var r={};e.exports=function(e,t){var o=function(e){if(void 0===r[e]){var t=document.querySelector(e);if(window.HTMLIFrameElement&&t instanceof window.HTMLIFrameElement)try{t=t.contentDocument.head}catch(e){t=null}r[e]=t}return r[e]}(e);if(!o)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");o.appendChild(t)}},540(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},56(e,r,t){e.exports=function(e){var r=t.nc;r&&e.setAttribute("nonce",r)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(t){var o,a,n;o="",t.supports&&(o+="@supports (".concat(t.supports,") {")),t.media&&(o+="@media ".concat(t.media," {")),(a=void 0!==t.layer)&&(o+="@layer".concat(t.layer.length>0?" ".concat(t.layer):""," {")),o+=t.css,a&&(o+="}"),t.media&&(o+="}"),t.supports&&(o+="}"),(n=t.sourceMap)&&"u">typeof btoa&&(o+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(n))))," */")),e.styleTagTransform(o,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}},579(e,r,t){var o=t(72),a=t.n(o),n=t(825),p=t.n(n),s=t(659),i=t.n(s),l=t(56),c=t.n(l),d=t(540),u=t.n(d),f=t(113),g=t.n(f),v=t(475),h={};h.styleTagTransform=g(),h.setAttributes=c(),h.insert=i().bind(null,"head"),h.domAPI=p(),h.insertStyleElement=u(),a()(v.A,h),v.A&&v.A.locals&&v.A.locals},852(e){e.exports="data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%276%27 height=%273%27%3E%3Cpath d=%27m0 2.5 l1.5 -2 l1.5 2 l1.5 -2 l1.5 2%27 stroke=%27%231976d2%27 fill=%27none%27 stroke-width=%27.9%27/%3E%3C/svg%3E"},836(e){e.exports="data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%276%27 height=%273%27%3E%3Cpath d=%27m0 2.5 l1.5 -2 l1.5 2 l1.5 -2 l1.5 2%27 stroke=%27%23d32f2f%27 fill=%27none%27 stroke-width=%27.9%27/%3E%3C/svg%3E"},78(e){e.exports="data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%276%27 height=%273%27%3E%3Cpath d=%27m0 2.5 l1.5 -2 l1.5 2 l1.5 -2 l1.5 2%27 stroke=%27%23f57c00%27 fill=%27none%27 stroke-width=%27.9%27/%3E%3C/svg%3E"}}]);