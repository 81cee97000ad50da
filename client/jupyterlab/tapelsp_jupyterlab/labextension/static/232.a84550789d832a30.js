"use strict";(self.rspackChunktapelsp_jupyterlab=self.rspackChunktapelsp_jupyterlab||[]).push([[232],{475(e,r,o){var t=o(601),a=o.n(t),n=o(314),p=(o.n(n))()(a());p.push([e.id,`/* tapelsp sidebar and underlines. Colours come from JupyterLab's theme variables. */
.tapelsp-sidebar {
  display: flex;
  flex-direction: column;
  gap: 6px;
  padding: 8px;
  overflow-y: auto;
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
  min-width: 260px;
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
.tapelsp-runtime-message { color: var(--jp-ui-font-color2); white-space: pre-wrap; }
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

/* Underlines in the cell editors. */
.tapelsp-underline { text-decoration-line: underline; text-decoration-style: wavy; text-decoration-skip-ink: none; }
.tapelsp-underline-error { text-decoration-color: var(--jp-error-color1); }
.tapelsp-underline-warning { text-decoration-color: var(--jp-warn-color1); }
.tapelsp-underline-information { text-decoration-color: var(--jp-info-color1); }
.tapelsp-underline-confirmed { background: color-mix(in srgb, var(--jp-error-color1) 12%, transparent); }
`,""]),o.d(r,{},{A:p})},314(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var o="",t=void 0!==r[5];return r[4]&&(o+="@supports (".concat(r[4],") {")),r[2]&&(o+="@media ".concat(r[2]," {")),t&&(o+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),o+=e(r),t&&(o+="}"),r[2]&&(o+="}"),r[4]&&(o+="}"),o}).join("")},r.i=function(e,o,t,a,n){"string"==typeof e&&(e=[[null,e,void 0]]);var p={};if(t)for(var i=0;i<this.length;i++){var l=this[i][0];null!=l&&(p[l]=!0)}for(var s=0;s<e.length;s++){var c=[].concat(e[s]);t&&p[c[0]]||(void 0!==n&&(void 0===c[5]||(c[1]="@layer".concat(c[5].length>0?" ".concat(c[5]):""," {").concat(c[1],"}")),c[5]=n),o&&(c[2]&&(c[1]="@media ".concat(c[2]," {").concat(c[1],"}")),c[2]=o),a&&(c[4]?(c[1]="@supports (".concat(c[4],") {").concat(c[1],"}"),c[4]=a):c[4]="".concat(a)),r.push(c))}},r}},601(e){e.exports=function(e){return e[1]}},72(e){var r=[];function o(e){for(var o=-1,t=0;t<r.length;t++)if(r[t].identifier===e){o=t;break}return o}function t(e,t){for(var a={},n=[],p=0;p<e.length;p++){var i=e[p],l=t.base?i[0]+t.base:i[0],s=a[l]||0,c="".concat(l," ").concat(s);a[l]=s+1;var d=o(c),u={css:i[1],media:i[2],sourceMap:i[3],supports:i[4],layer:i[5]};if(-1!==d)r[d].references++,r[d].updater(u);else{var f=function(e,r){var o=r.domAPI(r);return o.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&o.update(e=r):o.remove()}}(u,t);t.byIndex=p,r.splice(p,0,{identifier:c,updater:f,references:1})}n.push(c)}return n}e.exports=function(e,a){var n=t(e=e||[],a=a||{});return function(e){e=e||[];for(var p=0;p<n.length;p++){var i=o(n[p]);r[i].references--}for(var l=t(e,a),s=0;s<n.length;s++){var c=o(n[s]);0===r[c].references&&(r[c].updater(),r.splice(c,1))}n=l}}},659(e){var r={};e.exports=function(e,o){var t=function(e){if(void 0===r[e]){var o=document.querySelector(e);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(e){o=null}r[e]=o}return r[e]}(e);if(!t)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");t.appendChild(o)}},540(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},56(e,r,o){e.exports=function(e){var r=o.nc;r&&e.setAttribute("nonce",r)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(o){var t,a,n;t="",o.supports&&(t+="@supports (".concat(o.supports,") {")),o.media&&(t+="@media ".concat(o.media," {")),(a=void 0!==o.layer)&&(t+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),t+=o.css,a&&(t+="}"),o.media&&(t+="}"),o.supports&&(t+="}"),(n=o.sourceMap)&&"u">typeof btoa&&(t+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(n))))," */")),e.styleTagTransform(t,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}},579(e,r,o){var t=o(72),a=o.n(t),n=o(825),p=o.n(n),i=o(659),l=o.n(i),s=o(56),c=o.n(s),d=o(540),u=o.n(d),f=o(113),v=o.n(f),b=o(475),g={};g.styleTagTransform=v(),g.setAttributes=c(),g.insert=l().bind(null,"head"),g.domAPI=p(),g.insertStyleElement=u(),a()(b.A,g),b.A&&b.A.locals&&b.A.locals}}]);